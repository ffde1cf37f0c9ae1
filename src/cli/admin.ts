// `npm run admin -- list [pending|approved|rejected] [--search text] [--after cursor] | approve <driverId> | reject <driverId> <reason…> | resume-link <driverId> | whoami | staff add <email> --role <role>… | keys status | keys rotate`
//
// The admin API from a terminal, as a named staff member: it sends ONRAMP_STAFF_TOKEN, their key
// (made on the admin page, or printed once by `staff add`) or a session `sign-in` printed, and the
// server acts, and writes the audit record, as that person with their roles. Export and erase
// need a sign-in at most 5 minutes old, which a key never is: `sign-in` first. It talks HTTP to the running server
// (ONRAMP_URL, default http://127.0.0.1:3000), so it works the same against a local or a deployed
// server. Three commands open the database themselves: `staff add`, the bootstrap that makes the
// first owner before anyone can sign in (audited as the terminal's user; anyone after them is
// emailed an invitation, as an owner's adding on the admin page does), and `keys status` and
// `keys rotate`, which work on the stored ciphertexts with the data keys (adminKeys.ts).
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LOCAL_AUTH_EMULATOR_HOST } from '../server/config.js';
import { addAndInviteStaff, addStaff, staffEmailOf, staffRolesOf } from '../server/lib/staffMembers.js';
import { STAFF_KEY_PREFIX } from '../server/plugins/staffAuth.js';
import type { StaffRole, StaffSession } from '../shared/review.js';
import { AdminApiError, adminRequest, type AdminIo, type AdminSettings } from './adminApi.js';
import { REVIEW_STATUSES, type QueueDriver, type QueuePage, type ReviewStatus } from '../shared/review.js';
import { STAFF_ROLES } from '../shared/generated/staff.js';
import { KEYS_USAGE, type KeysCommand, parseKeysArgs, runKeysCommand } from './adminKeys.js';
import { PRIVACY_USAGE, parsePrivacyArgs, runPrivacyCommand, type PrivacyCommand } from './adminPrivacy.js';
import { withServerApp } from './serverApp.js';
import type { KeyCreated, ResumeLink } from '../shared/generated/api.js';

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
  whoami                             the staff member ONRAMP_STAFF_TOKEN acts as, and their roles
  sign-in <email>                    sign in with your password (from ONRAMP_STAFF_PASSWORD, or asked
                                     for) and print a session token for ONRAMP_STAFF_TOKEN: export
                                     and erase need one at most 5 minutes old
  key create <label…>                a key of the signed-in person (ONRAMP_STAFF_TOKEN must be a
                                     session from sign-in), printed once; owners revoke keys on /admin
  staff add <email> --role <role> [--role <role>…]
                                     add a staff member straight into the database (the first
                                     owner's bootstrap; roles: ${STAFF_ROLES.join(', ')}) and print a
                                     key of theirs, once; anyone but the first owner is emailed an
                                     invitation to choose a password, as the admin page's Add does
${KEYS_USAGE}

Environment: ONRAMP_URL (default ${DEFAULT_ONRAMP_URL}); ONRAMP_STAFF_TOKEN, the key or session token of
the staff member the command acts as; for sign-in, FIREBASE_API_KEY (production) or
FIREBASE_AUTH_EMULATOR_HOST (default ${LOCAL_AUTH_EMULATOR_HOST}, the local emulator); \`staff add\` reads the
server's own settings (DATABASE_URL or DATA_DIR, …), and so do \`keys status\` and \`keys rotate\` (DATA_KEYS)`;

export type AdminCommand =
  | { kind: 'help' }
  | { kind: 'list'; status: ReviewStatus; search?: string; after?: string }
  | { kind: 'approve'; driverId: string }
  | { kind: 'reject'; driverId: string; reason: string }
  | { kind: 'resume-link'; driverId: string }
  | { kind: 'whoami' }
  | { kind: 'sign-in'; email: string }
  | { kind: 'key-create'; label: string }
  | { kind: 'staff-add'; email: string; roles: StaffRole[] }
  | PrivacyCommand
  | KeysCommand;

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
    case 'whoami':
      return rest.length === 0 ? { kind: 'whoami' } : error('whoami takes nothing more.');
    case 'sign-in':
      return rest.length === 1 && rest[0] ? { kind: 'sign-in', email: rest[0] } : error('sign-in takes your email.');
    case 'staff':
      return parseStaffArgs(rest);
    case 'keys':
      return parseKeysArgs(rest);
    case 'key': {
      const [action, ...words] = rest;
      const label = words.join(' ').trim();
      if (action !== 'create' || !label) return error('key takes: create <label>, e.g.: key create laptop');
      return { kind: 'key-create', label };
    }
    default:
      return error(`Unknown command "${name}".`);
  }
}

/** `staff add <email> --role <role>…`, or what is wrong with it. */
function parseStaffArgs(rest: readonly string[]): Parsed {
  const error = (message: string): Parsed => ({ kind: 'usage-error', message });
  const [action, ...words] = rest;
  if (action !== 'add') return error('staff takes: add <email> --role <role> [--role <role>…]');
  const positional: string[] = [];
  const roles: string[] = [];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index]!;
    if (word === '--role') {
      const role = words[index + 1];
      if (!role) return error('--role needs a role.');
      roles.push(role);
      index += 1;
    } else if (word.startsWith('--')) return error(`Unknown option "${word}" for staff add.`);
    else positional.push(word);
  }
  if (positional.length !== 1) return error('staff add takes one email.');
  try {
    return { kind: 'staff-add', email: staffEmailOf(positional[0]), roles: staffRolesOf(roles) };
  } catch (refusal) {
    return error((refusal as Error).message);
  }
}

/**
 * The bootstrap: adds the person straight into the database the server's settings name, as the
 * terminal's user, and prints a key of theirs once. The server's own code does it (its app, built
 * and closed here), so the person, their Firebase account, their invitation and the audit record
 * are as an owner's addition would make them; the server sends the invitation (it is queued with
 * the other notices). The very first owner of an install gets none: the server's mail may not be
 * set up yet, and Firebase's own "Forgot password?" email needs none of it. The embedded database
 * can be open in one process only: stop `npm start` first, or use DATABASE_URL.
 */
export async function addStaffFromTerminal(
  command: { email: string; roles: StaffRole[] },
  io: Pick<AdminIo, 'out' | 'err'>,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const terminal = { staffId: null, actor: `terminal:${userInfo().username}`, ip: null };
  return withServerApp(io, env, async (app) => {
    const first = (await app.db.query('SELECT 1 FROM staff LIMIT 1')).rows.length === 0;
    const invited = first ? null : await addAndInviteStaff(app, command, terminal);
    const id = invited ? invited.id : await addStaff(app, command, terminal);
    const { key, id: keyId } = await app.staffAuth.createKey(id, 'staff add (terminal)');
    await app.audit.recordAs(terminal, { action: 'staff.key-create', details: { keyId, of: command.email } });
    io.out(`Added ${command.email} as ${command.roles.join(', ')}.`);
    io.out(`Their key for this command (shown once; revoke it on the admin page): ${key}`);
    io.out(`  export ONRAMP_STAFF_TOKEN=${key}`);
    io.out(
      invited
        ? `They are emailed an invitation to choose their password, as the admin page's Add sends one (the server sends it; its link works until ${formatTime(invited.expiresAt.toISOString())}).`
        : 'As the first owner they get no invitation email: they sign in on the admin page (/admin) with this email, and "Forgot password?" there sets their password.',
    );
    return 0;
  });
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

/** ONRAMP_URL and the staff key from the environment; throws a readable Error. */
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
  const token = env.ONRAMP_STAFF_TOKEN?.trim() ?? '';
  if (!token) {
    throw new Error(
      `No staff credential: set ONRAMP_STAFF_TOKEN to your key (${STAFF_KEY_PREFIX}…: the admin page makes one; the first owner's is printed by \`npm run admin -- staff add\`) or to the token \`npm run admin -- sign-in <email>\` prints.`,
    );
  }
  return { baseUrl, token };
}

/**
 * A Firebase ID token for the person's email and password, as the admin page gets one: from the
 * Auth emulator locally, from Firebase with FIREBASE_API_KEY.
 */
async function firebaseIdToken(email: string, password: string, env: Record<string, string | undefined>, io: AdminIo): Promise<string> {
  const emulator = env.FIREBASE_AUTH_EMULATOR_HOST || (env.FIREBASE_API_KEY ? null : LOCAL_AUTH_EMULATOR_HOST);
  const base = emulator ? `http://${emulator}/identitytoolkit.googleapis.com` : 'https://identitytoolkit.googleapis.com';
  let response: Response;
  try {
    response = await io.fetch(`${base}/v1/accounts:signInWithPassword?key=${encodeURIComponent(env.FIREBASE_API_KEY || 'demo-api-key')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, returnSecureToken: true }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch {
    throw new AdminApiError(`Cannot reach Firebase Authentication at ${base}.`);
  }
  // An answer that is not JSON holds no token: refused below like a wrong password.
  const answer = (await response.json().catch(() => null)) as { idToken?: unknown } | null;
  // Firebase tells a wrong email from a wrong password; we don't.
  if (!response.ok || typeof answer?.idToken !== 'string') throw new AdminApiError('The email or password is not right.');
  return answer.idToken;
}

/** The password from ONRAMP_STAFF_PASSWORD, or typed at the terminal (not echoed: read from a hidden prompt). */
async function passwordOf(env: Record<string, string | undefined>): Promise<string> {
  if (env.ONRAMP_STAFF_PASSWORD) return env.ONRAMP_STAFF_PASSWORD;
  if (!process.stdin.isTTY) throw new AdminApiError('Set ONRAMP_STAFF_PASSWORD, or run sign-in at a terminal to type it.');
  const { createInterface } = await import('node:readline/promises');
  const terminal = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  // Nothing typed is shown: readline writes through this, which drops the echo.
  (terminal as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = (text: string) => {
    if (text.startsWith('Password')) process.stdout.write(text);
  };
  try {
    return await terminal.question('Password: ');
  } finally {
    terminal.close();
    process.stdout.write('\n');
  }
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
export async function runAdminCommand(
  command: AdminCommand,
  settings: AdminSettings,
  io: AdminIo,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
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
      case 'staff-add':
        return await addStaffFromTerminal(command, io);
      case 'keys-status':
      case 'keys-rotate':
        return await runKeysCommand(command, io, env);
      case 'whoami': {
        const me = await callApi<StaffSession>(settings, io, 'GET', '/admin/session');
        io.out(`${me.email} (${me.roles.join(', ')}), ${me.via === 'key' ? 'with a key' : `signed in until ${formatTime(me.expiresAt)} at the latest`}`);
        break;
      }
      case 'key-create': {
        const { key } = await callApi<KeyCreated>(settings, io, 'POST', '/admin/keys', { label: command.label });
        io.out(`Your key "${command.label}" (shown once; revoke it on the admin page):`);
        io.out(`  export ONRAMP_STAFF_TOKEN=${key}`);
        break;
      }
      case 'sign-in': {
        const idToken = await firebaseIdToken(command.email, await passwordOf(env), env, io);
        const session = await callApi<StaffSession>(settings, io, 'POST', '/admin/session', { idToken });
        io.out(`Signed in as ${session.email} (${session.roles.join(', ')}). Export and erase take this for 5 minutes; it ends after 15 idle minutes:`);
        io.out(`  export ONRAMP_STAFF_TOKEN=${session.token}`);
        break;
      }
      case 'resume-link': {
        const { url, expiresAt } = await callApi<ResumeLink>(settings, io, 'POST', driverPath(command.driverId, 'resume-link'));
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
  if (command.kind === 'staff-add') return addStaffFromTerminal(command, io);
  if (command.kind === 'keys-status' || command.kind === 'keys-rotate') return runKeysCommand(command, io);
  let settings: AdminSettings;
  try {
    // Signing in is what makes a token: it needs none.
    settings = command.kind === 'sign-in' ? { ...adminSettings({ ...process.env, ONRAMP_STAFF_TOKEN: 'none' }), token: '' } : adminSettings();
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
