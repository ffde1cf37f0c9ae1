/** Puts the data cipher (lib/dataCipher.ts), keyed with DATA_KEY, on the app as `app.cipher`. */
import { createDataCipher, type DataCipher } from '../lib/dataCipher.js';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    cipher: DataCipher;
  }
}

export const cryptoPlugin = fp<{ dataKey: Buffer }>(
  async (app, options) => {
    app.decorate('cipher', createDataCipher(options.dataKey));
  },
  { name: 'onramp-crypto' },
);
