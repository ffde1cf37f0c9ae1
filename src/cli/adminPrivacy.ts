// `npm run admin -- export <driverId> [--out file.zip]` and `npm run admin -- erase <driverId> --confirm <email>`
//
// Data-access requests and erasure from a terminal (the API is src/server/routes/adminPrivacy.ts),
// dispatched by src/cli/admin.ts with the same ONRAMP_URL and ONRAMP_STAFF_TOKEN: a privacy
// officer's session from `sign-in`, at most 5 minutes old. The export holds the driver's SSN and
// documents in clear: it is written only to a new file, readable by its owner alone.
import { writeFile } from 'node:fs/promises';
import { AdminApiError, adminRequest, type AdminIo, type AdminSettings } from './adminApi.js';

/** An export reads every document and an erasure rewrites tables: more time than a list. */
const PRIVACY_TIMEOUT_MS = 120_000;

export const PRIVACY_USAGE = `  export <driverId> [--out file.zip]
                                     everything kept of a driver, for their data-access request
                                     (default file: onramp-driver-<driverId>.zip, never overwritten)
  erase <driverId> --confirm <email>
                                     erase a driver (rows, files, sessions, sign-in account); payment
                                     records are kept without the person (see docs/operations.md)`;

export type PrivacyCommand = { kind: 'export'; driverId: string; out: string | null } | { kind: 'erase'; driverId: string; confirm: string };

/** `export …` or `erase …` after the command name, or what is wrong with it. */
export function parsePrivacyArgs(name: 'export' | 'erase', rest: readonly string[]): PrivacyCommand | { kind: 'usage-error'; message: string } {
  const error = (message: string) => ({ kind: 'usage-error' as const, message });
  const flag = name === 'export' ? '--out' : '--confirm';
  const positional: string[] = [];
  let value: string | null = null;
  for (let index = 0; index < rest.length; index += 1) {
    const word = rest[index]!;
    if (word === flag) {
      const next = rest[index + 1];
      if (!next || value !== null) return error(`${name} takes ${flag} once, with a value.`);
      value = next;
      index += 1;
    } else if (word.startsWith('--')) return error(`Unknown option "${word}" for ${name}.`);
    else positional.push(word);
  }
  if (positional.length !== 1 || !positional[0]) return error(`${name} takes one driver id.`);
  const driverId = positional[0];
  if (name === 'export') return { kind: 'export', driverId, out: value };
  if (value === null) return error('erase needs --confirm with the driver’s email, e.g.: erase <driverId> --confirm ada@example.com');
  return { kind: 'erase', driverId, confirm: value };
}

/** Runs `export` or `erase` against the server; returns the exit code (0, or 1 on any error). */
export async function runPrivacyCommand(command: PrivacyCommand, settings: AdminSettings, io: AdminIo): Promise<number> {
  const path = (action: string) => `/admin/drivers/${encodeURIComponent(command.driverId)}/${action}`;
  try {
    if (command.kind === 'export') {
      const response = await adminRequest(settings, io, 'GET', path('export'), { timeoutMs: PRIVACY_TIMEOUT_MS });
      if (!(response.headers.get('content-type') ?? '').startsWith('application/zip')) {
        throw new AdminApiError(`Unexpected answer from ${settings.baseUrl} (not a zip): is ONRAMP_URL the Onramp server?`);
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      const out = command.out ?? `onramp-driver-${command.driverId}.zip`;
      try {
        // A new file only (an earlier export is never overwritten), readable by its owner alone.
        await writeFile(out, bytes, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        throw new AdminApiError(
          code === 'EEXIST' ? `${out} exists already: choose another file with --out.` : `Cannot write ${out}: ${(error as Error).message}`,
        );
      }
      io.out(
        `Exported driver ${command.driverId} to ${out} (${bytes.length} bytes). It holds their SSN and documents in clear: hand it to the driver only, then delete it.`,
      );
    } else {
      const response = await adminRequest(settings, io, 'POST', path('erase'), { body: { confirm: command.confirm }, timeoutMs: PRIVACY_TIMEOUT_MS });
      const { erased } = (await response.json()) as { erased: { answers: number; files: number; sessions: number } };
      io.out(
        `Erased driver ${command.driverId}: ${erased.answers} answered steps, ${erased.files} files, ${erased.sessions} sessions, and the sign-in account. Payment records are kept without the person.`,
      );
    }
    return 0;
  } catch (error) {
    if (!(error instanceof AdminApiError)) throw error;
    io.err(`Error: ${error.message}`);
    return 1;
  }
}
