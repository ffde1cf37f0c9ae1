/**
 * The server's configuration, read once from the environment (and the local secrets' files in
 * DATA_DIR); reading it writes nothing. Every adapter choice (database, identity emulator, static
 * files) is made here, so the rest of the server only reads a plain object and tests can build one
 * by hand.
 *
 * Over 300 lines on purpose: every environment variable, its default and its check are read in
 * this one place, so an operator's question ("what does X do, what if it is wrong?") has one file
 * to answer it, and a variable can't be read twice in two ways.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { isMissingFile } from '../node/fileErrors.js';
import { DIST } from '../node/projectFiles.js';
import { type DataKey, KEY_ID_PATTERN, LEGACY_KEY_ID } from './lib/dataCipher.js';
import { tracesExported } from './lib/traces.js';

/** The local stand-ins' addresses (firebase.json starts the emulator there). */
export const LOCAL_AUTH_EMULATOR_HOST = '127.0.0.1:9099';
/** A `demo-` project needs no credentials: the emulator and firebase-admin accept it offline. */
export const LOCAL_FIREBASE_PROJECT_ID = 'demo-onramp';

export type DatabaseConfig =
  /** PGlite in `dir`, or in memory when `dir` is null (tests). */
  { kind: 'pglite'; dir: string | null } | { kind: 'postgres'; url: string };

export interface ServerConfig {
  host: string;
  port: number;
  production: boolean;
  /** Where the local database, the generated data key and the uploads live. */
  dataDir: string;
  /** The data keys, the current one first (lib/dataCipher.ts): DATA_KEYS, or DATA_KEY alone as key "0". */
  dataKeys: DataKey[];
  database: DatabaseConfig;
  firebaseProjectId: string;
  /** The Firebase web API key the browser uses (public by design; any value works with the emulator). */
  firebaseApiKey: string;
  /** host:port of the Firebase Auth emulator; always null in production. */
  firebaseAuthEmulatorHost: string | null;
  /** The built client: the content's dist/ (projectFiles.ts), or STATIC_DIR. */
  staticDir: string;
  /** Only behind a reverse proxy that sets X-Forwarded-For; otherwise a client could pick its own IP. */
  trustProxy: boolean;
  logLevel: string;
  /** Traces are sent over OTLP (lib/traces.ts): each log line of a request carries its trace id. */
  traces: boolean;
  /** Per-IP limit on /auth/*: at most `max` requests per `windowMs`. */
  authRateLimit: { max: number; windowMs: number };
  /**
   * The ready-made owner `npm start` signs in with (main.ts): an account in the Auth emulator and a
   * staff member with every role, made on the data folder's first start. Null in production (no
   * emulator there), and until a start wrote their address and password (prepareLocalSecrets).
   */
  localOwner: { email: string; password: string } | null;
  /** The address drivers open (for resume links), e.g. https://onramp.example.com; null: the request's own origin. */
  publicUrl: string | null;
  payments: PaymentsConfig;
  subscriptionPlan: SubscriptionPlan;
  messaging: MessagingConfig;
  /** Where uploaded documents are kept (encrypted either way). */
  storage: StorageConfig;
  /** The counters every server instance shares (request limits): the database, or Redis. */
  sharedCounters: { kind: 'database' } | { kind: 'redis'; url: string };
  shutdown: ShutdownConfig;
  /**
   * The bearer token /metrics asks for (routes/metrics.ts); null: /metrics is open outside
   * production, and answers no one in production.
   */
  metricsToken: string | null;
  /** How long a webhook's endpoint has to answer (plugins/webhooks.ts; not from the environment: tests shorten it). */
  webhookTimeoutMs?: number;
}

/** A stop on SIGTERM, in the order load balancers expect (shutdown.ts). */
export interface ShutdownConfig {
  /** How long /readyz says "not ready" while the server still serves, for the balancer to notice. */
  graceMs: number;
  /** How long requests in flight (uploads included) may take after that, before their connections are cut. */
  drainMs: number;
}

/**
 * 10 s: haproxy's default checks (every 2 s, down after 3 failures) notice within 6 s, a
 * readinessProbe of `periodSeconds: 2, failureThreshold: 3` the same; the rest is margin for a
 * check that was under way and for the balancer's own reload.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** 30 s: six photos of about 330 KB from a phone on a slow connection (400 kbit/s) take about 40 s to send whole; most are sent one by one, each well within this. */
export const DEFAULT_SHUTDOWN_DRAIN_MS = 30_000;

/** How codes and notices reach drivers: SMTP and Twilio, or the local outbox (GET /dev/outbox). */
export interface MessagingConfig {
  email: { kind: 'local' } | { kind: 'smtp'; url: string; from: string };
  sms: { kind: 'local' } | { kind: 'twilio'; accountSid: string; authToken: string; from: string; apiBase?: string };
  /** The waits between the tries of a code that did not go out (not from the environment: tests shorten them). */
  codeRetryDelaysMs?: number[];
}

export type StorageConfig =
  /** DATA_DIR/uploads on this machine. */
  | { kind: 'disk' }
  /** An S3-compatible bucket; credentials from the AWS SDK's usual chain (environment, profile, instance role). */
  | { kind: 's3'; bucket: string; region: string; endpoint?: string; forcePathStyle: boolean };

/** The weekly subscription as drivers see it on /summary; the sandbox charges it too. */
export interface SubscriptionPlan {
  amountCents: number;
  currency: string;
  interval: 'week';
}

export type PaymentsConfig =
  /** The local stand-in for Stripe: test cards only, no account, no network. */
  | { kind: 'sandbox' }
  | {
      kind: 'stripe';
      secretKey: string;
      /** Public by design: the browser's Stripe.js uses it. */
      publishableKey: string;
      /** The weekly price (price_…) drivers subscribe to. */
      priceId: string;
      /** whsec_…: verifies webhook deliveries; without it the webhook endpoint refuses every delivery. */
      webhookSecret: string | null;
      /** Another address for the Stripe API (tests point it at a local Stripe-shaped server). */
      apiBase?: { host: string; port: number; protocol: 'http' | 'https' };
    };

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function readInteger(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be a whole number of at least ${min}, got "${raw}".`);
  return value;
}

function parseDataKey(raw: string, from: string): Buffer {
  const key = Buffer.from(raw.trim(), 'base64');
  if (key.length !== 32) {
    throw new ConfigError(`${from} must be a base64-encoded 32-byte key (make one with: openssl rand -base64 32).`);
  }
  return key;
}

function readKeysFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(`DATA_KEYS_FILE (${file}) cannot be read.`);
  }
}

/**
 * DATA_KEYS' value (or DATA_KEYS_FILE's text): `id:base64key` pairs split by commas or lines, the
 * current key first; the others only read what they sealed, until `keys rotate` moved it on.
 */
function parseDataKeys(raw: string, from: string): DataKey[] {
  const keys = raw
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const colon = entry.indexOf(':');
      const id = entry.slice(0, colon);
      if (colon < 0 || !KEY_ID_PATTERN.test(id)) {
        throw new ConfigError(`${from} must be a list of id:base64key, each id 1 to 32 letters, digits, "-" or "_" (the current key first).`);
      }
      return { id, key: parseDataKey(entry.slice(colon + 1), `${from}'s key "${id}"`) };
    });
  if (keys.length === 0) throw new ConfigError(`${from} holds no key.`);
  const ids = keys.map((k) => k.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw new ConfigError(`${from} names the key "${twice}" twice.`);
  return keys;
}

/** The local secrets' files in DATA_DIR, which prepareLocalSecrets writes and readConfig reads. */
const DATA_KEY_FILE = 'data-key';
const OWNER_ADDRESS_FILE = 'local-owner-address';
const OWNER_PASSWORD_FILE = 'local-owner-password';

/**
 * The local data key's file, read; a missing one is a ConfigError saying how it is made. Only a
 * missing file is: another failure (its permissions) is thrown as it is.
 */
function readDataKeyFile(dataDir: string): Buffer {
  const file = join(dataDir, DATA_KEY_FILE);
  try {
    return parseDataKey(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if (!isMissingFile(error)) throw error;
    throw new ConfigError(`${file} is missing: \`npm start\` makes it on its first start, or set DATA_KEY.`);
  }
}

/**
 * The local owner, once prepareLocalSecrets made their address and password as the server started.
 * A configuration read with no start (a test's, the lint's) has none: no owner is made then.
 */
function localOwnerOf(dataDir: string): ServerConfig['localOwner'] {
  try {
    const [email = '', password = ''] = [OWNER_ADDRESS_FILE, OWNER_PASSWORD_FILE].map((file) => readFileSync(join(dataDir, file), 'utf8').trim());
    return { email, password };
  } catch (error) {
    if (isMissingFile(error)) return null;
    throw error;
  }
}

/** Writes `text` to `file`, readable by its owner only, unless the file exists (another start made it first). */
function writeOnce(file: string, text: string): void {
  try {
    writeFileSync(file, `${text}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  chmodSync(file, 0o600);
}

/**
 * The one step that writes configuration, run as a server starts (main.ts) before readConfig,
 * which writes nothing. Outside production, the secrets no one sets there are generated once into
 * DATA_DIR and reused, so `npm start` works with no set-up and data written yesterday can still
 * be read today: the data key (unless DATA_KEY is set) and the local owner's address and password
 * (the emulator forgets its accounts when it stops; main.ts makes the account again). The address,
 * of no real domain (`.local`), is the data folder's own: every local server shares the one
 * emulator and sets its owner's password there, which would undo the one another folder's printed.
 */
export function prepareLocalSecrets(env: Env = process.env): void {
  if (env.NODE_ENV === 'production') return;
  const dataDir = dataDirOf(env);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (!env.DATA_KEY && !env.DATA_KEYS && !env.DATA_KEYS_FILE) writeOnce(join(dataDir, DATA_KEY_FILE), randomBytes(32).toString('base64'));
  writeOnce(join(dataDir, OWNER_ADDRESS_FILE), `owner-${randomBytes(4).toString('hex')}@onramp.local`);
  writeOnce(join(dataDir, OWNER_PASSWORD_FILE), randomBytes(12).toString('base64url'));
}

/** Where the server keeps its local state. */
export const dataDirOf = (env: Env = process.env) => resolve(env.DATA_DIR || '.data');

/**
 * An address setting, parsed, its scheme one of `schemes`. The messages name the setting and an
 * example, never the value given: it may hold a password.
 */
function readUrlSetting(name: string, raw: string, schemes: readonly string[], example: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // URL throws only for what is not an address; the message names the setting, never the value.
    throw new ConfigError(`${name} must be an address such as ${example}.`);
  }
  if (!schemes.includes(url.protocol.slice(0, -1))) {
    throw new ConfigError(`${name} must start with ${schemes.map((scheme) => `${scheme}://`).join(' or ')}, not ${url.protocol}//.`);
  }
  return url;
}

const HTTP = ['http', 'https'] as const;

/** An http(s) address without a trailing slash, or null when unset. */
function readPublicUrl(env: Env): string | null {
  const raw = env.PUBLIC_URL;
  if (raw === undefined || raw === '') return null;
  const url = readUrlSetting('PUBLIC_URL', raw, HTTP, 'https://onramp.example.com');
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError('PUBLIC_URL must be a plain http(s) address such as https://onramp.example.com.');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function readApiBase(raw: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = readUrlSetting('STRIPE_API_BASE', raw, HTTP, 'http://127.0.0.1:12111');
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: Number(url.port || (protocol === 'https' ? 443 : 80)), protocol };
}

/**
 * Stripe when STRIPE_SECRET_KEY is set, else the sandbox. Production must use Stripe: the
 * sandbox "takes" test cards from anyone. No publishable key ships with the product, where the
 * spec's has a test key built in (a departure on purpose, docs/departures.md): the browser's key
 * comes from STRIPE_PUBLISHABLE_KEY with the rest of Stripe's settings, and without them the
 * local sandbox needs none.
 */
function readPayments(env: Env, production: boolean): PaymentsConfig {
  const secretKey = env.STRIPE_SECRET_KEY;
  if (!secretKey) {
    if (production) throw new ConfigError('STRIPE_SECRET_KEY is required in production: without it subscriptions would be paid with test cards.');
    return { kind: 'sandbox' };
  }
  const missing = ['STRIPE_PUBLISHABLE_KEY', 'STRIPE_PRICE_ID', ...(production ? ['STRIPE_WEBHOOK_SECRET'] : [])].filter((name) => !env[name]);
  if (missing.length > 0) throw new ConfigError(`With STRIPE_SECRET_KEY set, ${missing.join(' and ')} must be set too.`);
  return {
    kind: 'stripe',
    secretKey,
    publishableKey: env.STRIPE_PUBLISHABLE_KEY!,
    priceId: env.STRIPE_PRICE_ID!,
    webhookSecret: env.STRIPE_WEBHOOK_SECRET || null,
    ...(env.STRIPE_API_BASE ? { apiBase: readApiBase(env.STRIPE_API_BASE) } : {}),
  };
}

/** A postgres:// or postgresql:// address (its password is never printed back). */
function readDatabaseUrl(raw: string): string {
  readUrlSetting('DATABASE_URL', raw, ['postgres', 'postgresql'], 'postgres://user:password@host:5432/onramp');
  return raw;
}

/** Where the database is, for messages: the address without its password. */
export function shownDatabaseUrl(database: DatabaseConfig): string {
  if (database.kind === 'pglite') return database.dir ?? 'the in-memory database';
  const url = new URL(database.url);
  if (url.password) url.password = '***';
  return url.toString();
}

/** A redis:// or rediss:// address. */
function readRedisUrl(raw: string): string {
  readUrlSetting('REDIS_URL', raw, ['redis', 'rediss'], 'redis://127.0.0.1:6379');
  return raw;
}

/** An http(s) address, for a setting that points a client elsewhere. */
function readHttpUrl(name: string, raw: string, example: string): string {
  readUrlSetting(name, raw, HTTP, example);
  return raw;
}

/** An address as a mail header takes it: "Onramp <no-reply@example.com>" or "no-reply@example.com". */
const MAIL_FROM_PATTERN = /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+)$/;

/**
 * SMTP when SMTP_URL is set, Twilio when its three settings are, the local outbox otherwise.
 * Production must have both: without them no code reaches a driver, and nobody can sign up.
 */
function readMessaging(env: Env, production: boolean): MessagingConfig {
  let email: MessagingConfig['email'] = { kind: 'local' };
  if (env.SMTP_URL) {
    readUrlSetting('SMTP_URL', env.SMTP_URL, ['smtp', 'smtps'], 'smtps://user:password@smtp.example.com:465');
    if (!env.MAIL_FROM)
      throw new ConfigError('With SMTP_URL set, MAIL_FROM must be set too: the sender drivers see, e.g. "Onramp <no-reply@onramp.example.com>".');
    if (!MAIL_FROM_PATTERN.test(env.MAIL_FROM))
      throw new ConfigError(`MAIL_FROM must be an email address, or a name and an address in <>, got "${env.MAIL_FROM}".`);
    email = { kind: 'smtp', url: env.SMTP_URL, from: env.MAIL_FROM };
  } else if (production) {
    throw new ConfigError('SMTP_URL and MAIL_FROM are required in production: without them no email code reaches a driver, and nobody can sign up.');
  }

  let sms: MessagingConfig['sms'] = { kind: 'local' };
  const twilio = ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const;
  const given = twilio.filter((name) => env[name]);
  if (given.length > 0) {
    const missing = twilio.filter((name) => !env[name]);
    if (missing.length > 0) throw new ConfigError(`With ${given.join(' and ')} set, ${missing.join(' and ')} must be set too.`);
    const from = env.TWILIO_FROM!;
    if (!/^(\+[1-9][0-9]{6,14}|MG[0-9a-fA-F]{32})$/.test(from)) {
      throw new ConfigError(`TWILIO_FROM must be a phone number in E.164 form (+12025550100) or a Messaging Service SID (MG…), got "${from}".`);
    }
    sms = {
      kind: 'twilio',
      accountSid: env.TWILIO_ACCOUNT_SID!,
      authToken: env.TWILIO_AUTH_TOKEN!,
      from,
      ...(env.TWILIO_API_BASE ? { apiBase: readHttpUrl('TWILIO_API_BASE', env.TWILIO_API_BASE, 'http://127.0.0.1:4010') } : {}),
    };
  } else if (production) {
    throw new ConfigError('TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM are required in production: without them no phone code reaches a driver.');
  }
  return { email, sms };
}

/** S3-compatible storage when S3_BUCKET is set; disk otherwise. */
function readStorage(env: Env): StorageConfig {
  if (!env.S3_BUCKET) {
    if (env.S3_ENDPOINT || env.S3_REGION) throw new ConfigError('S3_ENDPOINT and S3_REGION need S3_BUCKET: the bucket documents are kept in.');
    return { kind: 'disk' };
  }
  const endpoint = env.S3_ENDPOINT ? readHttpUrl('S3_ENDPOINT', env.S3_ENDPOINT, 'https://<account>.r2.cloudflarestorage.com') : undefined;
  const pathStyle = env.S3_FORCE_PATH_STYLE;
  if (pathStyle !== undefined && pathStyle !== '' && pathStyle !== 'true' && pathStyle !== 'false') {
    throw new ConfigError(`S3_FORCE_PATH_STYLE must be true or false, got "${pathStyle}".`);
  }
  return {
    kind: 's3',
    bucket: env.S3_BUCKET,
    region: env.S3_REGION || 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
    // Most S3-compatible servers (MinIO and the like) address buckets in the path.
    forcePathStyle: pathStyle ? pathStyle === 'true' : endpoint !== undefined,
  };
}

/** As long as a random 128-bit token written in base64: a shorter one could be guessed. */
const METRICS_TOKEN_MIN_LENGTH = 22;

function readMetricsToken(env: Env): string | null {
  const token = env.METRICS_TOKEN;
  if (token === undefined || token === '') return null;
  if (token.length < METRICS_TOKEN_MIN_LENGTH || /\s/.test(token)) {
    // The message never repeats the token: it is a secret.
    throw new ConfigError(`METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_LENGTH} characters with no spaces (make one with: openssl rand -base64 32).`);
  }
  return token;
}

const isInside = (child: string, parent: string) => {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

export function readConfig(env: Env = process.env): ServerConfig {
  const production = env.NODE_ENV === 'production';
  const dataDir = dataDirOf(env);
  const staticDir = env.STATIC_DIR ? resolve(env.STATIC_DIR) : DIST;

  if (isInside(join(dataDir, 'uploads'), staticDir)) {
    // Uploads are identity documents: they must never be reachable as static files.
    throw new ConfigError(`DATA_DIR (${dataDir}) must not be inside STATIC_DIR (${staticDir}).`);
  }

  const keySettings = ['DATA_KEY', 'DATA_KEYS', 'DATA_KEYS_FILE'].filter((name) => env[name]);
  if (keySettings.length > 1) throw new ConfigError(`Set one of DATA_KEY, DATA_KEYS and DATA_KEYS_FILE, not ${keySettings.join(' and ')}.`);
  let dataKeys: DataKey[];
  if (env.DATA_KEYS) dataKeys = parseDataKeys(env.DATA_KEYS, 'DATA_KEYS');
  else if (env.DATA_KEYS_FILE) dataKeys = parseDataKeys(readKeysFile(env.DATA_KEYS_FILE), env.DATA_KEYS_FILE);
  else if (env.DATA_KEY) dataKeys = [{ id: LEGACY_KEY_ID, key: parseDataKey(env.DATA_KEY, 'DATA_KEY') }];
  else if (production) {
    throw new ConfigError(
      'DATA_KEY is required in production: set it to a base64-encoded 32-byte key (openssl rand -base64 32). ' +
        'It encrypts SSNs and identity documents; keep it safe, data written with it cannot be read without it. ' +
        'A ring of keys, to replace one, is DATA_KEYS (docs/keys.md).',
    );
  } else dataKeys = [{ id: LEGACY_KEY_ID, key: readDataKeyFile(dataDir) }];

  let firebaseAuthEmulatorHost: string | null = null;
  if (production) {
    // With this variable set, firebase-admin accepts unsigned tokens: anyone could sign in as anyone.
    if (env.FIREBASE_AUTH_EMULATOR_HOST) {
      throw new ConfigError('FIREBASE_AUTH_EMULATOR_HOST must not be set in production: it makes the server accept unsigned sign-in tokens.');
    }
  } else {
    firebaseAuthEmulatorHost = env.FIREBASE_AUTH_EMULATOR_HOST || LOCAL_AUTH_EMULATOR_HOST;
  }

  if (production && !env.DATABASE_URL) {
    throw new ConfigError(
      'DATABASE_URL is required in production: set it to a PostgreSQL connection string (postgres://user:password@host:5432/onramp). ' +
        'The embedded database is for one local process only.',
    );
  }
  const database: DatabaseConfig = env.DATABASE_URL
    ? { kind: 'postgres', url: readDatabaseUrl(env.DATABASE_URL) }
    : { kind: 'pglite', dir: join(dataDir, 'pglite') };

  const firebaseProjectId = env.FIREBASE_PROJECT_ID || LOCAL_FIREBASE_PROJECT_ID;
  if (production && (!env.FIREBASE_PROJECT_ID || firebaseProjectId.startsWith('demo-'))) {
    throw new ConfigError(
      'FIREBASE_PROJECT_ID is required in production: the ID of the Firebase project drivers sign in with (a demo- project works only with the emulator).',
    );
  }
  if (production && !env.FIREBASE_API_KEY) {
    throw new ConfigError("FIREBASE_API_KEY is required in production: the Firebase project's web API key, which the browser uses to sign drivers in.");
  }

  return {
    host: env.HOST || '127.0.0.1',
    port: readInteger(env, 'PORT', 3000, 0),
    production,
    dataDir,
    dataKeys,
    database,
    firebaseProjectId,
    firebaseApiKey: env.FIREBASE_API_KEY || 'demo-api-key',
    firebaseAuthEmulatorHost,
    staticDir,
    trustProxy: env.TRUST_PROXY === 'true' || env.TRUST_PROXY === '1',
    logLevel: env.LOG_LEVEL || 'info',
    traces: tracesExported(env),
    authRateLimit: {
      max: readInteger(env, 'AUTH_RATE_LIMIT_MAX', 30, 1),
      windowMs: readInteger(env, 'AUTH_RATE_LIMIT_WINDOW_MS', 60_000, 1),
    },
    localOwner: firebaseAuthEmulatorHost ? localOwnerOf(dataDir) : null,
    publicUrl: readPublicUrl(env),
    payments: readPayments(env, production),
    // Spec §9: $199 per week. With Stripe the price object charges; this is what drivers are shown.
    subscriptionPlan: { amountCents: readInteger(env, 'SUBSCRIPTION_PRICE_CENTS', 19_900, 1), currency: 'usd', interval: 'week' },
    messaging: readMessaging(env, production),
    storage: readStorage(env),
    sharedCounters: env.REDIS_URL ? { kind: 'redis', url: readRedisUrl(env.REDIS_URL) } : { kind: 'database' },
    shutdown: {
      graceMs: readInteger(env, 'SHUTDOWN_GRACE_MS', DEFAULT_SHUTDOWN_GRACE_MS, 0),
      drainMs: readInteger(env, 'SHUTDOWN_DRAIN_MS', DEFAULT_SHUTDOWN_DRAIN_MS, 0),
    },
    metricsToken: readMetricsToken(env),
  };
}
