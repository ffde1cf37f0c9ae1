import type { FastifyPluginAsync } from 'fastify';

/**
 * Marks a plugin as not encapsulated, so what it decorates is visible to the whole app (what
 * fastify-plugin does; `skip-override` is the documented switch, and we need nothing else).
 */
export function shared<Options extends object>(plugin: FastifyPluginAsync<Options>): FastifyPluginAsync<Options> {
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
}
