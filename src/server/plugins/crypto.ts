/** Puts the data cipher (lib/dataCipher.ts), keyed with the data keys (DATA_KEYS or DATA_KEY), on the app as `app.cipher`. */
import { createDataCipher, type DataCipher, type DataKey } from '../lib/dataCipher.js';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    cipher: DataCipher;
  }
}

export const cryptoPlugin = fp<{ dataKeys: DataKey[] }>(
  async (app, options) => {
    app.decorate('cipher', createDataCipher(options.dataKeys));
  },
  { name: 'onramp-crypto' },
);
