/**
 * Where the request limits count (@fastify/rate-limit's store), shared by every server instance:
 * a row per client address in PostgreSQL (the default), or Redis with REDIS_URL (the plugin's own
 * Redis store). Nothing is counted in one process's memory: behind a load balancer, a second
 * server would otherwise double every limit.
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor, RateLimitPluginOptions } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from '../config.js';
import type { Db } from '../db/db.js';
import { everyInterval } from '../lib/backgroundPass.js';

/** Expired windows are deleted this often. */
const CLEANUP_MS = 10 * 60 * 1000;

/** A store class for @fastify/rate-limit that counts in the database's rate_limits table. */
function databaseRateLimitStore(db: Db, now: () => Date): FastifyRateLimitStoreCtor {
  class DatabaseStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      const at = now();
      // One statement: a new window, or one more hit in the current one, atomically for all servers.
      db.query<{ hits: number; resets_at: Date }>(
        `INSERT INTO rate_limits (key, hits, resets_at) VALUES ($1, 1, $2)
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN rate_limits.resets_at <= $3 THEN 1 ELSE rate_limits.hits + 1 END,
           resets_at = CASE WHEN rate_limits.resets_at <= $3 THEN $2 ELSE rate_limits.resets_at END
         RETURNING hits, resets_at`,
        [key, new Date(at.getTime() + timeWindow), at],
      ).then(
        ({ rows }) => callback(null, { current: rows[0]!.hits, ttl: Math.max(0, new Date(rows[0]!.resets_at).getTime() - at.getTime()) }),
        (error: Error) => callback(error),
      );
    }
    child(): FastifyRateLimitStore {
      return new DatabaseStore();
    }
  }
  return DatabaseStore;
}

/**
 * @fastify/rate-limit's options for the shared counters of the configuration: the database store
 * above, or the plugin's Redis store on a client of ours (closed with the app).
 */
export async function sharedLimitStore(
  app: FastifyInstance,
  counters: ServerConfig['sharedCounters'],
): Promise<Pick<RateLimitPluginOptions, 'store' | 'redis' | 'skipOnError'>> {
  // A counter that can't be reached lets the request through: the routes behind answer 503 if
  // the database itself is away, and a Redis outage must not lock every driver out.
  if (counters.kind === 'redis') {
    const { Redis } = await import('ioredis');
    const redis = new Redis(counters.url, { connectTimeout: 2_000, maxRetriesPerRequest: 1, lazyConnect: false });
    redis.on('error', (error: Error) => app.log.warn({ error: error.message }, 'Redis, where request limits are counted, is unavailable'));
    // A Redis already gone needs no goodbye; its errors are logged by the listener above.
    app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
    return { redis, skipOnError: true };
  }
  // A sweep that fails (the database away) is done by the next one; a count past its reset is not used meanwhile.
  everyInterval(app, {
    name: 'cleanup of request limits',
    intervalMs: CLEANUP_MS,
    run: () => app.db.query('DELETE FROM rate_limits WHERE resets_at < $1', [app.now()]),
  });
  return { store: databaseRateLimitStore(app.db, app.now), skipOnError: true };
}
