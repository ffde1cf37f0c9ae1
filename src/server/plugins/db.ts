import type { DatabaseConfig } from '../config.js';
import { openDb, type Db } from '../db/db.js';
import { shared } from './shared.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
  }
}

/**
 * Opens the database once (PGlite takes seconds to open) and applies the migrations. A test
 * may hand in an open `db`; the app then leaves closing it to the test.
 */
export const dbPlugin = shared<{ database: DatabaseConfig; db?: Db }>(async (app, options) => {
  const db = options.db ?? (await openDb(options.database));
  app.decorate('db', db);
  if (!options.db) app.addHook('onClose', () => db.close());
});
