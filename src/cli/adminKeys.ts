// `npm run admin -- keys status` and `npm run admin -- keys rotate [--batch n]`
//
// The data keys (docs/keys.md): which key seals how much of the stored data, and moving it all to
// the current key (the first of DATA_KEYS) so an old key can leave DATA_KEYS. Both open the
// server's own app on its data (serverApp.ts); rotation runs beside live servers.
import { DEFAULT_BATCH_SIZE, dataKeyUsage, type KeyUsage, rotateDataKeys } from '../server/lib/rekey.js';
import type { AdminIo } from './adminApi.js';
import { withServerApp } from './serverApp.js';

export const KEYS_USAGE = `  keys status                        per data key id, how many rows and files it still seals (a key
                                     can leave DATA_KEYS once nothing uses it)
  keys rotate [--batch n]            seal everything again under the current data key (the first of
                                     DATA_KEYS), n rows per transaction (default ${DEFAULT_BATCH_SIZE}); safe to stop
                                     and run again`;

export type KeysCommand = { kind: 'keys-status' } | { kind: 'keys-rotate'; batchSize: number };

/** `keys …` after the command name, or what is wrong with it. */
export function parseKeysArgs(rest: readonly string[]): KeysCommand | { kind: 'usage-error'; message: string } {
  const [action, ...options] = rest;
  if (action === 'status' && options.length === 0) return { kind: 'keys-status' };
  if (action === 'rotate' && options.length === 0) return { kind: 'keys-rotate', batchSize: DEFAULT_BATCH_SIZE };
  if (action === 'rotate' && options[0] === '--batch' && options.length === 2) {
    const batchSize = Number(options[1]);
    if (Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= 10_000) return { kind: 'keys-rotate', batchSize };
    return { kind: 'usage-error', message: '--batch takes a whole number from 1 to 10000.' };
  }
  return { kind: 'usage-error', message: 'keys takes: status, or rotate [--batch n]' };
}

/** The status lines: each key held, then any key the data names that DATA_KEYS does not hold. */
export function formatKeyUsage(usage: KeyUsage, held: readonly string[]): string[] {
  const used = new Set(Object.values(usage).flatMap((counts) => Object.keys(counts)));
  const usesOf = (keyId: string) =>
    Object.entries(usage)
      .filter(([, counts]) => counts[keyId])
      .map(([label, counts]) => `${counts[keyId]} ${label}`)
      .join(', ');
  return [
    ...held.map((keyId, index) => {
      const name = `key "${keyId}"${index === 0 ? ' (current)' : ''}`;
      if (used.has(keyId)) return `${name}: ${usesOf(keyId)}`;
      return index === 0 ? `${name}: nothing yet` : `${name}: nothing, it can leave DATA_KEYS`;
    }),
    ...[...used]
      .filter((keyId) => !held.includes(keyId))
      .map((keyId) => `${keyId.startsWith('(') ? keyId : `key "${keyId}" (not in DATA_KEYS)`}: ${usesOf(keyId)}, which cannot be read`),
  ];
}

/** Runs `keys status` or `keys rotate` on the server's data; 1 when some data can't be read with DATA_KEYS. */
export function runKeysCommand(command: KeysCommand, io: Pick<AdminIo, 'out' | 'err'>, env: Record<string, string | undefined> = process.env): Promise<number> {
  return withServerApp(io, env, async (app) => {
    if (command.kind === 'keys-rotate') {
      io.out(`Sealing everything again under the current data key "${app.cipher.currentKeyId}", ${command.batchSize} rows at a time.`);
      const report = await rotateDataKeys(app, (label, { seen, moved }) => io.out(`${label}: ${seen} looked at, ${moved} moved`), command.batchSize);
      const left = Object.entries(report).filter(([, { unreadable }]) => unreadable > 0);
      for (const [label, { unreadable }] of left) io.err(`${label}: ${unreadable} left as they are: sealed with a key DATA_KEYS does not hold, or damaged`);
      io.out('Done: `keys status` says which keys are still used.');
      return left.length > 0 ? 1 : 0;
    }
    const lines = formatKeyUsage(await dataKeyUsage(app), app.cipher.keyIds);
    for (const line of lines) io.out(line);
    return lines.some((line) => line.endsWith('which cannot be read')) ? 1 : 0;
  });
}
