import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's "now": code expiry and session expiry read it, so tests can move time. */
    now: () => Date;
  }
}

export const clockPlugin = fp<{ now?: () => Date }>(
  async (app, options) => {
    app.decorate('now', options.now ?? (() => new Date()));
  },
  { name: 'onramp-clock' },
);
