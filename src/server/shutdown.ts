/**
 * A stop in the order load balancers expect (a rolling restart loses no request):
 * 1. /readyz answers 503 at once, and each answer closes its connection, while the server still
 *    serves everything for `graceMs`: long enough for the balancer's checks to take it out;
 * 2. it stops taking connections, and requests in flight (uploads included) finish, for at most
 *    `drainMs`, after which their connections are cut (a request cut there removes its files);
 * 3. the database and the other services close (their onClose hooks).
 * /healthz answers 200 until the end: the process is well, only stopping.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { ShutdownConfig } from './config.js';

export async function stopServing(app: FastifyInstance, { graceMs, drainMs }: ShutdownConfig): Promise<void> {
  app.draining = true;
  if (graceMs > 0) {
    app.log.info({ graceMs }, 'Stopping: not ready any more, serving until the balancer has noticed');
    await sleep(graceMs);
  }
  const cut = setTimeout(() => {
    app.log.warn({ drainMs }, 'Stopping: requests still in flight are cut');
    app.server.closeAllConnections();
  }, drainMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
