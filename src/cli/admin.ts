// `npm run admin -- list [pending|approved|rejected] [--search text] [--after cursor] | approve <driverId> | reject <driverId> <reason…> | resume-link <driverId>`
//
// The admin API from a terminal. It talks HTTP to the running server (ONRAMP_URL, default
// http://127.0.0.1:3000), so it works the same against a local or a deployed server and never
// touches the database itself. The admin token is ADMIN_TOKEN, or locally the one the server
// generated into DATA_DIR/admin-token (found the way the server finds it: config.ts).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dataDirOf, adminTokenFileOf, readLocalAdminToken } from '../server/config.js';
import { AdminApiError, adminRequest, type AdminIo, type AdminSettings } from './adminApi.js';
import { REVIEW_STATUSES, type QueueDriver, type QueuePage, type ReviewStatus } from '../shared/review.js';
import { PRIVACY_USAGE, parsePrivacyArgs, runPrivacyCommand, type PrivacyCommand } from './adminPrivacy.js';

export const DEFAULT_ONRAMP_URL = 'http://127.0.0.1:3000';
/** A server that does not answer in this time is reported, not waited for. */
const REQUEST_TIMEOUT_MS = 15_000;

export const USAGE = `Usage: npm run admin -- <command>

  list [pending|approved|rejected] [--search text] [--after cursor]
                                     a page of drivers in that review state (default: pending, the
                                     review queue, oldest first); search by name, email or phone
  approve <driverId>                 approve a driver who sent their vehicle
  reject <driverId> <reason…>        reject with a reason the driver is shown (1-500 characters)
  resume-link <driverId>             a link that takes the driver back to their step (valid 15 minutes)
${PRIVACY_USAGE}

Environment: ONRAMP_URL (default ${DEFAULT_ONRAMP_URL}), ADMIN_TOKEN (default: DATA_DIR/admin-token, DATA_DIR default .data)`;

export type AdminCommand =
  | { kind: 'help' }
  | { kind: 'list'; status: ReviewStatus; search?: string; after?: string }
  | { kind: 'approve'; driverId: string }
  | { kind: 'reject'; driverId: string; reason: string }
  | { kind: 'resume-link'; driverId: string }
  | PrivacyCommand;

export type Parsed = AdminCommand | { kind: 'usage-error'; message: string };

const isReviewStatus = (value: string): value is ReviewStatus => (REVIEW_STATUSES as readonly string[]).includes(value);

/** The command line after `--`, as a command or what is wrong with it. */
export function parseAdminArgs(args: readonly string[]): Parsed {
  const [name, ...rest] = args;
  const error = (message: string): Parsed => ({ kind: 'usage-error', message });
  switch (name) {
    case undefined:
      return error('Missing command.');
    case 'help':
    case '-h':
    case '--help':
      return { kind: 'help' };
    case 'list': {
      const options: { search?: string; after?: string } = {};
      const states: string[] = [];
      for (let index = 0; index < rest.length; index += 1) {
        const word = rest[index]!;
        if (word === '--search' || word === '--after') {
          const value = rest[index + 1];
          if (!value) return error(`${word} needs a value.`);
          options[word === '--search' ? 'search' : 'after'] = value;
          index += 1;
        } else states.push(word);
      }
      if (states.length > 1) return error('list takes at most one state.');
      const status = states[0] ?? 'pending';
      if (!isReviewStatus(status)) return error(`Unknown state "${status}": use ${REVIEW_STATUSES.join(', ')}.`);
      return { kind: 'list', status, ...options };
    }
    case 'approve':
    case 'resume-link': {
      if (rest.length !== 1 || !rest[0]) return error(`${name} takes one driver id.`);
      return name === 'approve' ? { kind: 'approve', driverId: rest[0] } : { kind: 'resume-link', driverId: rest[0] };
    }
    case 'reject': {
      const [driverId, ...words] = rest;
      if (!driverId) return error('reject takes a driver id and a reason.');
      // The reason may be quoted or not: `reject <id> Blurry licence photo` works too.
      const reason = words.join(' ').trim();
      if (!reason) return error('reject needs a reason, e.g.: reject <driverId> The licence photo is blurry');
      return { kind: 'reject', driverId, reason };
    }
    case 'export':
    case 'erase':
      return parsePrivacyArgs(name, rest);
    default:
      return error(`Unknown command "${name}".`);
  }
}

/** "2025-06-01 14:03 UTC", or "—" when there is no time. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '—' : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A plain-text table: id, name, email, status, submitted. */
export function formatDriverTable(drivers: readonly QueueDriver[], status: ReviewStatus): string {
  if (drivers.length === 0) return `No ${status} drivers.`;
  const header = ['id', 'name', 'email', 'status', 'submitted'];
  const rows = drivers.map((driver) => [driver.id, driver.name ?? '—', driver.email, driver.status, formatTime(driver.submittedAt)]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** ONRAMP_URL and the admin token from the environment (or the local token file); throws a readable Error. */
export function adminSettings(env: Record<string, string | undefined> = process.env): AdminSettings {
  const raw = env.ONRAMP_URL || DEFAULT_ONRAMP_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`ONRAMP_URL must be an address such as ${DEFAULT_ONRAMP_URL}, got "${raw}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`ONRAMP_URL must be an http(s) address, got "${raw}".`);
  const baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  if (env.ADMIN_TOKEN) return { baseUrl, token: env.ADMIN_TOKEN };
  const dataDir = dataDirOf(env);
  const token = readLocalAdminToken(dataDir);
  if (!token) {
    throw new Error(`No admin token: set ADMIN_TOKEN, or start the server once with \`npm start\` (it writes ${adminTokenFileOf(dataDir)}).`);
  }
  return { baseUrl, token };
}

/** A JSON answer of the admin API (adminApi.ts says how a failure reads). */
async function callApi<T>(settings: AdminSettings, io: AdminIo, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await adminRequest(settings, io, method, path, { body, timeoutMs: REQUEST_TIMEOUT_MS });
  try {
    return (await response.json()) as T;
  } catch {
    throw new AdminApiError(`Unexpected answer from ${settings.baseUrl}${path} (HTTP ${response.status}, not JSON): is ONRAMP_URL the Onramp server?`);
  }
}

/** Runs one command against the server; returns the exit code (0, or 1 on any error). */
export async function runAdminCommand(command: AdminCommand, settings: AdminSettings, io: AdminIo): Promise<number> {
  const driverPath = (driverId: string, action: string) => `/admin/drivers/${encodeURIComponent(driverId)}/${action}`;
  try {
    switch (command.kind) {
      case 'help':
        io.out(USAGE);
        break;
      case 'export':
      case 'erase':
        return await runPrivacyCommand(command, settings, io);
      case 'list': {
        const query = new URLSearchParams({ status: command.status });
        if (command.search) query.set('q', command.search);
        if (command.after) query.set('after', command.after);
        const { drivers, next } = await callApi<QueuePage>(settings, io, 'GET', `/admin/drivers?${query}`);
        io.out(formatDriverTable(drivers, command.status));
        if (next)
          io.out(`\nMore: npm run admin -- list ${command.status}${command.search ? ` --search ${JSON.stringify(command.search)}` : ''} --after ${next}`);
        break;
      }
      case 'approve':
      case 'reject': {
        // A decision names the version of the driver's data it was made on: the one just read.
        const driver = await callApi<{ reviewVersion: number }>(settings, io, 'GET', `/admin/drivers/${encodeURIComponent(command.driverId)}`);
        const decision = command.kind === 'approve' ? { reviewVersion: driver.reviewVersion } : { reviewVersion: driver.reviewVersion, reason: command.reason };
        await callApi(settings, io, 'POST', driverPath(command.driverId, command.kind), decision);
        io.out(command.kind === 'approve' ? `Approved driver ${command.driverId}.` : `Rejected driver ${command.driverId}: ${command.reason}`);
        break;
      }
      case 'resume-link': {
        const { url, expiresAt } = await callApi<{ url: string; expiresAt: string }>(settings, io, 'POST', driverPath(command.driverId, 'resume-link'));
        io.out(`Resume link for ${command.driverId} (valid until ${formatTime(expiresAt)}): ${url}`);
        break;
      }
    }
    return 0;
  } catch (error) {
    if (!(error instanceof AdminApiError)) throw error;
    io.err(`Error: ${error.message}`);
    return 1;
  }
}

async function main(): Promise<number> {
  const io: AdminIo = { fetch, out: (line) => console.log(line), err: (line) => console.error(line) };
  const command = parseAdminArgs(process.argv.slice(2));
  if (command.kind === 'usage-error') {
    io.err(`${command.message}\n\n${USAGE}`);
    return 1;
  }
  if (command.kind === 'help') return runAdminCommand(command, { baseUrl: '', token: '' }, io);
  let settings: AdminSettings;
  try {
    settings = adminSettings();
  } catch (error) {
    io.err(`Error: ${(error as Error).message}`);
    return 1;
  }
  return runAdminCommand(command, settings, io);
}

// Run only as the script, not when a test imports the functions above.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main();
}
