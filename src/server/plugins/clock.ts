import { shared } from './shared.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's "now": code expiry and session expiry read it, so tests can move time. */
    now: () => Date;
  }
}

export const clockPlugin = shared<{ now?: () => Date }>(async (app, options) => {
  app.decorate('now', options.now ?? (() => new Date()));
});
