/**
 * Each request's `locale`: the language its answers are in, read from its Accept-Language when
 * first asked for (the first language there that Onramp speaks, else English).
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { preferredLocale, type Locale } from '../../shared/locales.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The language the answer is in: the first of the request's Accept-Language that Onramp speaks. */
    readonly locale: Locale;
  }
}

export const localePlugin = fp(
  async (app) => {
    app.decorateRequest('locale', {
      getter(this: FastifyRequest) {
        return preferredLocale(this.headers['accept-language']);
      },
    });
  },
  { name: 'onramp-locale' },
);
