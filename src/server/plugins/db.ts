import type { DatabaseConfig } from '../config.js';
import { openDb, type Db } from '../db/db.js';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
  }
}

/**
 * Opens the database once (PGlite takes seconds to open) and applies the migrations. A test
 * may hand in an open `db`; the app then leaves closing it to the test.
 */
export const dbPlugin = fp<{ database: DatabaseConfig; db?: Db }>(
  async (app, options) => {
    // A broken idle connection (the database restarted) is only worth a line: the pool opens a new one.
    const db = options.db ?? (await openDb(options.database, (error) => app.log.warn({ error: error.message }, 'A database connection was lost')));
    app.decorate('db', db);
    if (!options.db) app.addHook('onClose', () => db.close());
  },
  { name: 'onramp-db' },
);
