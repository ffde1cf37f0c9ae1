/**
 * The one database interface the services use. Two implementations run the same SQL: PGlite
 * (embedded Postgres, the local default and the tests) and node-postgres against a real
 * PostgreSQL when DATABASE_URL is set.
 *
 * A real database can go away and come back. The pool survives it: an idle connection that
 * breaks is dropped (never an uncaught error), every wait is bounded (connecting, a statement, a
 * transaction left open), a failure to reach the database is thrown as DatabaseUnavailable (the
 * server answers 503 and stays up), and the next request simply opens a new connection.
 */
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import Postgrator from 'postgrator';
import type { DatabaseConfig } from '../config.js';

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  /**
   * `sql` as the prepared statement `name`: PostgreSQL parses and plans it once per connection
   * instead of at every call. For the statement every signed-in request runs (the session lookup),
   * whose planning costs more than its reading.
   */
  prepared<T = Record<string, unknown>>(name: string, sql: string, params: unknown[]): Promise<{ rows: T[] }>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<R>(work: (tx: Queryable) => Promise<R>): Promise<R>;
  /**
   * Runs `work` while holding the lock `name`, which one holder at a time has across every server
   * on the database; `work` runs outside any transaction, so what it writes stays written even if
   * it fails later. Waits `waitMs` at most for another holder, then throws LockBusy.
   */
  withLock<R>(name: string, waitMs: number, work: () => Promise<R>): Promise<R>;
  /**
   * Whether the database answers, asked on a connection of its own: a busy server's readiness
   * probe waits behind none of the requests it would let in, and says what the database does.
   */
  ping(): Promise<void>;
  /** Each pool's connections, by name: open, idle, and requests waiting for one. The embedded database has none: one session in this process. */
  pools(): Readonly<Record<string, PoolCounts>>;
  close(): Promise<void>;
}

export interface PoolCounts {
  total: number;
  idle: number;
  waiting: number;
}

/** Another holder kept the lock longer than the wait allowed. */
export class LockBusy extends Error {
  constructor(readonly lock: string) {
    super(`The lock ${lock} is held by another request.`);
    this.name = 'LockBusy';
  }
}

/**
 * PGlite's locks: its database lives in this one process, so a lock among this process's requests
 * is a lock among all of them. (PostgreSQL's advisory locks can't serve here: every query runs in
 * PGlite's one session, where a second request would take the lock its holder has.)
 */
function processLocks(): Db['withLock'] {
  const held = new Map<string, Promise<unknown>>();
  return async (name, waitMs, work) => {
    const before = held.get(name);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next request waits for this one, whether it takes the lock or gives up waiting.
    const queued = Promise.all([before, mine]);
    held.set(name, queued);
    try {
      if (before) {
        let timer: NodeJS.Timeout | undefined;
        const gaveUp = new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), waitMs);
        });
        const taken = await Promise.race([before.then(() => true), gaveUp]);
        clearTimeout(timer);
        if (!taken) throw new LockBusy(name);
      }
      return await work();
    } finally {
      release();
      if (held.get(name) === queued) held.delete(name);
    }
  };
}

/** The embedded database, as it is: openDb applies the migrations to it (a test applies them one by one). */
export async function openPglite(dir: string | null): Promise<Db> {
  // The local default only: a production install (no dev dependencies) never loads it.
  const { PGlite } = await import('@electric-sql/pglite');
  // The trigram indexes of the searches (migration 024).
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const pglite = await PGlite.create({ ...(dir && { dataDir: dir }), extensions: { pg_trgm } });
  const query = async <T>(sql: string, params: unknown[] = []) => ({ rows: (await pglite.query<T>(sql, params)).rows });
  return {
    query,
    // One connection, in this process: naming a statement would save nothing.
    prepared: (_name, sql, params) => query(sql, params),
    transaction<R>(work: (tx: Queryable) => Promise<R>) {
      return pglite.transaction((tx) =>
        work({
          async query<T>(sql: string, params: unknown[] = []) {
            const result = await tx.query<T>(sql, params);
            return { rows: result.rows };
          },
          async exec(sql: string) {
            await tx.exec(sql);
          },
        }),
      );
    },
    async exec(sql: string) {
      await pglite.exec(sql);
    },
    withLock: processLocks(),
    ping: async () => {
      await query('SELECT 1');
    },
    pools: () => ({}),
    close: () => pglite.close(),
  };
}

/** The database could not be reached, or stopped answering: the request may be tried again later. */
/** Whether a path's id can be a uuid column's value: anything else names no row (and would make PostgreSQL throw). */
/** PostgreSQL's unique_violation: a row that another (perhaps concurrent) one already holds the key of. */
export const isUniqueViolation = (error: unknown) => (error as { code?: unknown }).code === '23505';

export const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

export class DatabaseUnavailable extends Error {
  constructor(readonly reason: string) {
    super(`The database is unavailable: ${reason}`);
    this.name = 'DatabaseUnavailable';
  }
}

/**
 * Errors that say the connection, not the statement, failed: the network (refused, reset, timed
 * out, no such host), PostgreSQL shutting down or refusing connections (SQLSTATE classes 08 and
 * 57P, too many connections), a statement or connection that hit its time limit, and node-postgres'
 * own words for a connection that ended or never came.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Cannot use a pool after calling end/i;

export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = String((error as { code?: unknown }).code ?? '');
  return (
    NETWORK_CODES.has(code) ||
    code.startsWith('08') ||
    code.startsWith('57P') ||
    code === '53300' ||
    // statement_timeout or idle_in_transaction_session_timeout: the database is too slow to answer now.
    code === '57014' ||
    code === '25P03' ||
    UNAVAILABLE_MESSAGES.test(error.message)
  );
}

/**
 * The server said the connection is gone (it was shut down or restarted: SQLSTATE 57P01-57P03, or
 * class 08) or there was none to begin with: nothing of the statement ran, so it may be sent once
 * more on a new connection. Typically a pooled connection from before a database restart.
 */
function isStaleConnection(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  return code.startsWith('57P') || code.startsWith('08') || code === 'ECONNREFUSED';
}

/** Connections a server keeps open to the database at most. */
export const POOL_SIZE = 10;

/**
 * Runs `attempt` on a pooled connection, again on another while the ones it gets turn out to be
 * stale (each is destroyed as it fails, so after a restart this goes through the pool at most once).
 */
async function onLiveConnection<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isStaleConnection(error) || tries > POOL_SIZE) throw error;
    }
  }
}

const unavailable = (error: unknown): never => {
  if (isConnectionFailure(error)) throw new DatabaseUnavailable(error instanceof Error ? error.message : String(error));
  throw error;
};

/** The time limits of every connection (milliseconds): none of them can make a request wait for ever. */
export const POSTGRES_TIMEOUTS = {
  /** Opening a connection, and waiting for a free one in the pool. */
  connect: 5_000,
  /** One statement on the server; the client gives up a little later, in case the server can't even say so. */
  statement: 10_000,
  query: 12_000,
  /** A transaction left open, e.g. by a connection that stopped halfway. */
  idleInTransaction: 10_000,
} as const;

/** How long a migration's statement may take: building an index on a million drivers takes longer than any request may. */
const MIGRATION_TIMEOUT_MS = 3_600_000;

/** PostgreSQL's answer to a lock not taken within `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';

const countsOf = (pool: pg.Pool): PoolCounts => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });

function openPostgres(url: string, onPoolError: (error: Error) => void): Db {
  const poolOf = (max = POOL_SIZE) => {
    const pool = new pg.Pool({
      connectionString: url,
      max,
      connectionTimeoutMillis: POSTGRES_TIMEOUTS.connect,
      statement_timeout: POSTGRES_TIMEOUTS.statement,
      query_timeout: POSTGRES_TIMEOUTS.query,
      idle_in_transaction_session_timeout: POSTGRES_TIMEOUTS.idleInTransaction,
      keepAlive: true,
    });
    // A connection that breaks (the database restarted) says so with an 'error' event, idle in the
    // pool or lent to a request between two of its statements; unheard, the event would end the
    // process. Each connection's own listener reports it (pg takes its listener off a lent one): a
    // lent one's next statement fails and its request answers 503; an idle one is removed from the
    // pool by pg, which then also tells the pool, already reported.
    pool.on('connect', (client) => client.on('error', onPoolError));
    pool.on('error', () => undefined);
    return pool;
  };
  const pool = poolOf();
  // The connections that hold (or wait for) a lock while its work runs on the other pool: however
  // many requests wait for a lock, the queries of every other request still find a connection.
  const lockPool = poolOf();
  const probePool = poolOf(1);
  const run = async <T>(client: pg.Pool | pg.PoolClient, sql: string, params: unknown[]) => {
    try {
      const result = await client.query(sql, params);
      return { rows: result.rows as T[] };
    } catch (error) {
      return unavailable(error);
    }
  };
  /** A statement outside a transaction: a stale pooled connection is replaced once (the pool destroys it). */
  const runOnPool = <T>(statement: pg.QueryConfig): Promise<{ rows: T[] }> =>
    onLiveConnection(() => pool.query(statement)).then((result) => ({ rows: result.rows as T[] }), unavailable);
  /** A connection that answers: one from before a restart is dropped at its first word (BEGIN), and another taken. */
  const beginTransaction = () =>
    onLiveConnection(async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        return client;
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
    }).catch(unavailable);
  return {
    query: (sql, params = []) => runOnPool({ text: sql, values: params }),
    // node-postgres sends the statement's text once per connection, and the name alone after.
    prepared: (name, sql, params) => runOnPool({ name, text: sql, values: params }),
    async transaction(work) {
      const client = await beginTransaction();
      let broken: Error | undefined;
      try {
        // Without parameters node-postgres sends the text as it is, so it may hold several statements.
        const result = await work({
          query: (sql, params = []) => run(client, sql, params),
          // A migration (the only script) may build an index on a large table: it has the longer limit
          // migrate gives the server too. node-postgres reads a statement's own query_timeout, which its types leave out.
          exec: async (sql) => {
            try {
              await client.query({ text: sql, query_timeout: MIGRATION_TIMEOUT_MS + 2000 } as pg.QueryConfig);
            } catch (error) {
              unavailable(error);
            }
          },
        });
        await run(client, 'COMMIT', []);
        return result;
      } catch (error) {
        if (error instanceof DatabaseUnavailable) broken = error;
        else await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        // A connection that failed is destroyed rather than handed to the next request.
        client.release(broken);
      }
    },
    async exec(sql) {
      await runOnPool({ text: sql });
    },
    async withLock(name, waitMs, work) {
      const client = await onLiveConnection(() => lockPool.connect()).catch(unavailable);
      let broken: Error | undefined;
      try {
        // A session's advisory lock, not a transaction's: `work` may take as long as a payment
        // provider takes, and PostgreSQL ends a transaction left idle (idleInTransaction). The lock
        // ends with the session, so a server that dies holding it frees it.
        try {
          // The wait is bounded by lock_timeout alone, which may be longer than a statement's limits.
          const wait = Math.ceil(waitMs);
          await client.query('BEGIN');
          await client.query("SELECT set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true)", [`${wait}ms`, `${wait + 1000}ms`]);
          // node-postgres reads a statement's own query_timeout, which its types leave out.
          await client.query({ text: 'SELECT pg_advisory_lock(hashtext($1))', values: [name], query_timeout: wait + 2000 } as pg.QueryConfig);
          await client.query('COMMIT');
        } catch (error) {
          if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) {
            await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
            throw new LockBusy(name);
          }
          broken = error as Error;
          return unavailable(error);
        }
        try {
          return await work();
        } finally {
          // A lock that can't be given back goes with its connection, which is destroyed.
          await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]).catch((unlockError: Error) => (broken = unlockError));
        }
      } finally {
        client.release(broken);
      }
    },
    ping: async () => {
      await onLiveConnection(() => probePool.query('SELECT 1')).catch(unavailable);
    },
    pools: () => ({ queries: countsOf(pool), locks: countsOf(lockPool) }),
    close: async () => {
      await Promise.all([pool.end(), lockPool.end(), probePool.end()]);
    },
  };
}

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Where postgrator records the migrations it ran (its own name for it). */
const SCHEMA_TABLE = 'schemaversion';

/**
 * Applies every migrations/NNN.do.<name>.sql postgrator has not recorded yet, in version order, all in
 * one transaction: a migration that fails leaves the schema as it was. A transaction-wide advisory
 * lock keeps two servers starting at once from racing; the second finds nothing left to run.
 * Returns the file names it applied.
 */
export async function migrate(db: Db, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT set_config('statement_timeout', $1, true)", [`${MIGRATION_TIMEOUT_MS}ms`]);
    await tx.query('SELECT pg_advisory_xact_lock(7262001)');
    const postgrator = new Postgrator({
      migrationPattern: join(dir, '*.sql'),
      driver: 'pg',
      schemaTable: SCHEMA_TABLE,
      execQuery: (sql) => tx.query(sql),
      execSqlScript: (sql) => tx.exec(sql),
    });
    await adoptSchemaMigrations(tx, await postgrator.getMigrations());
    await takeCommentAmendments(tx);
    const applied = await postgrator.migrate();
    return applied.map((migration) => basename(migration.filename));
  });
}

/**
 * A database migrated before postgrator lists the files it ran in schema_migrations
 * ("007_answers_as_data.sql"). Postgrator's table is made from that list once, with the versions
 * and checksums of the files as they are now, so none of them runs again.
 */
async function adoptSchemaMigrations(tx: Queryable, migrations: Postgrator.Migration[]): Promise<void> {
  const { rows } = await tx.query<{ adopt: boolean }>(
    `SELECT to_regclass('schema_migrations') IS NOT NULL AND to_regclass('${SCHEMA_TABLE}') IS NULL AS adopt`,
  );
  if (!rows[0]?.adopt) return;
  const files = migrations.filter((each) => each.action === 'do');
  // The columns postgrator makes its table with.
  await tx.query(`CREATE TABLE ${SCHEMA_TABLE} (version bigint PRIMARY KEY, name text, md5 text, run_at timestamptz)`);
  await tx.query(
    `INSERT INTO ${SCHEMA_TABLE} (version, name, md5, run_at)
     SELECT file.version, file.name, file.md5, ran.applied_at
     FROM schema_migrations ran JOIN unnest($1::bigint[], $2::text[], $3::text[]) AS file (version, name, md5)
       ON file.version = split_part(ran.name, '_', 1)::bigint`,
    [files.map((each) => each.version), files.map((each) => each.name), files.map((each) => each.md5)],
  );
}

/** Why most were amended: a first line that named the change which made it, history that git keeps. */
const CHANGE_NAMED = 'The first line named the change that made it.';

/**
 * Migrations edited in their comments only, after databases ran them. Postgrator keeps
 * the checksum (md5) of each file it ran and refuses to start when a file's differs: a database
 * holding a file's checksum as first run (`ran`) is given the amended file's (`now`) before
 * postgrator compares, so it starts; any other edit of a migration is still refused.
 */
export const COMMENT_AMENDMENTS: readonly { version: number; ran: string; now: string; why: string }[] = [
  { version: 2, ran: '6d3dd7870d68f4b3ca8cc1ea2e435f5f', now: '60fa63948f6115ce770be60aeb884307', why: CHANGE_NAMED },
  { version: 4, ran: '43502437cf12c242c72ac87d18aae057', now: 'ea0005875d69d25d962a9e3d1f460939', why: CHANGE_NAMED },
  { version: 5, ran: '7f3047186835506a58ef3ae4404dd6da', now: 'a5cc7ea706bcb474cfb2cd9e50f9fb87', why: CHANGE_NAMED },
  { version: 6, ran: '3114974d264ee0f39add0c785744b6d7', now: 'f27f1f945f3b4a145a044bdff13a0746', why: CHANGE_NAMED },
  { version: 8, ran: 'fb7c1f632dd5c7bea3c07e72a863e234', now: '771ffc0f12161b55bf0f6bf021caa168', why: CHANGE_NAMED },
  { version: 9, ran: 'a911252c4499bcaeaf6c2bbc15d6ae9f', now: 'bf0f5420fae2e19eb2276f45c9c3e3a3', why: CHANGE_NAMED },
  {
    version: 10,
    ran: '5fc24064ba8f50f963870137d72c8d98',
    now: '33a380957bf6b32281500bbd0443cd21',
    why: 'The first line cited a document the repository does not hold; it names docs/operations.md.',
  },
  { version: 11, ran: '190e13e61f5d2684cf71f1df7143f109', now: '7813e3a20a3b6ff2e747fb992f0d11d1', why: CHANGE_NAMED },
  { version: 12, ran: '5077226f11d15dd7232cec8bd18868e2', now: '98c71d8b52b2f4899e6674772c46be12', why: CHANGE_NAMED },
  { version: 13, ran: '67f28d2e863e6279da1d66e4be3a0592', now: '24619af6fb07a3296d9e8b493632f3f4', why: CHANGE_NAMED },
  { version: 14, ran: '2f1b02c445f02f2962aa00cca33100a8', now: 'dd3b5e26f8494081b50b4ea33a6b558f', why: CHANGE_NAMED },
];

async function takeCommentAmendments(tx: Queryable): Promise<void> {
  const { rows } = await tx.query<{ ran: boolean }>(`SELECT to_regclass('${SCHEMA_TABLE}') IS NOT NULL AS ran`);
  if (!rows[0]?.ran) return;
  await tx.query(
    `UPDATE ${SCHEMA_TABLE} SET md5 = amended.now
     FROM unnest($1::bigint[], $2::text[], $3::text[]) AS amended (version, ran, now)
     WHERE ${SCHEMA_TABLE}.version = amended.version AND ${SCHEMA_TABLE}.md5 = amended.ran`,
    [COMMENT_AMENDMENTS.map((each) => each.version), COMMENT_AMENDMENTS.map((each) => each.ran), COMMENT_AMENDMENTS.map((each) => each.now)],
  );
}

/** Opens the database and applies the migrations. `onPoolError`: where a broken idle connection is reported. */
export async function openDb(config: DatabaseConfig, onPoolError: (error: Error) => void = () => undefined): Promise<Db> {
  const db = config.kind === 'postgres' ? openPostgres(config.url, onPoolError) : await openPglite(config.dir);
  try {
    await migrate(db);
  } catch (error) {
    // The migration's failure is the one to report; a close that fails as well adds nothing to it.
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}
