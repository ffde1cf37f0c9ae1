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
  close(): Promise<void>;
}

/** The embedded database, as it is: openDb applies the migrations to it (a test applies them one by one). */
export async function openPglite(dir: string | null): Promise<Db> {
  // The local default only: a production install (no dev dependencies) never loads it.
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create(dir ?? undefined);
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
    close: () => pglite.close(),
  };
}

/** The database could not be reached, or stopped answering: the request may be tried again later. */
/** Whether a path's id can be a uuid column's value: anything else names no row (and would make PostgreSQL throw). */
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

function openPostgres(url: string, onPoolError: (error: Error) => void): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: POSTGRES_TIMEOUTS.connect,
    statement_timeout: POSTGRES_TIMEOUTS.statement,
    query_timeout: POSTGRES_TIMEOUTS.query,
    idle_in_transaction_session_timeout: POSTGRES_TIMEOUTS.idleInTransaction,
    keepAlive: true,
  });
  // An idle connection that breaks (the server restarted) is removed from the pool by pg; without a
  // listener its 'error' event would end the process.
  pool.on('error', onPoolError);
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
        const result = await work({ query: (sql, params = []) => run(client, sql, params), exec: async (sql) => void (await run(client, sql, [])) });
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
    close: () => pool.end(),
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
    await tx.query('SELECT pg_advisory_xact_lock(7262001)');
    const postgrator = new Postgrator({
      migrationPattern: join(dir, '*.sql'),
      driver: 'pg',
      schemaTable: SCHEMA_TABLE,
      execQuery: (sql) => tx.query(sql),
      execSqlScript: (sql) => tx.exec(sql),
    });
    await adoptSchemaMigrations(tx, await postgrator.getMigrations());
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

/** Opens the database and applies the migrations. `onPoolError`: where a broken idle connection is reported. */
export async function openDb(config: DatabaseConfig, onPoolError: (error: Error) => void = () => undefined): Promise<Db> {
  const db = config.kind === 'postgres' ? openPostgres(config.url, onPoolError) : await openPglite(config.dir);
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}
