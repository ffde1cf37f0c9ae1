/**
 * The one database interface the services use. Two implementations run the same SQL: PGlite
 * (embedded Postgres, the local default and the tests) and node-postgres against a real
 * PostgreSQL when DATABASE_URL is set.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export interface Db extends Queryable {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<R>(work: (tx: Queryable) => Promise<R>): Promise<R>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

function openPglite(dir: string | null): Promise<Db> {
  return PGlite.create(dir ?? undefined).then((pglite) => ({
    async query<T>(sql: string, params: unknown[] = []) {
      const result = await pglite.query<T>(sql, params);
      return { rows: result.rows };
    },
    transaction<R>(work: (tx: Queryable) => Promise<R>) {
      return pglite.transaction((tx) =>
        work({
          async query<T>(sql: string, params: unknown[] = []) {
            const result = await tx.query<T>(sql, params);
            return { rows: result.rows };
          },
        }),
      );
    },
    async exec(sql: string) {
      await pglite.exec(sql);
    },
    close: () => pglite.close(),
  }));
}

function openPostgres(url: string): Db {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const run = async <T>(client: pg.Pool | pg.PoolClient, sql: string, params: unknown[]) => {
    const result = await client.query(sql, params);
    return { rows: result.rows as T[] };
  };
  return {
    query: (sql, params = []) => run(pool, sql, params),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work({ query: (sql, params = []) => run(client, sql, params) });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Applies every migrations/NNN_*.sql not yet recorded in schema_migrations, in name order, each
 * in its own transaction. An advisory lock keeps two servers starting at once from racing.
 */
export async function migrate(db: Db, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const files = readdirSync(dir)
    .filter((name) => /^\d+_.*\.sql$/.test(name))
    .sort();
  const applied: string[] = [];
  for (const name of files) {
    const sql = readFileSync(join(dir, name), 'utf8');
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(7262001)');
      const seen = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name]);
      if (seen.rows.length > 0) return false;
      // Statements one by one: a parameterised query runs a single statement in both drivers.
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
      return true;
    });
    if (done) applied.push(name);
  }
  return applied;
}

/** Splits a migration on `;` at the end of a line. Our migrations keep no `;` inside strings or bodies. */
export function splitStatements(sql: string): string[] {
  return sql
    .replace(/^\s*--.*$/gm, '')
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}

export async function openDb(config: DatabaseConfig): Promise<Db> {
  const db = config.kind === 'postgres' ? openPostgres(config.url) : await openPglite(config.dir);
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}
