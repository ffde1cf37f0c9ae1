import type { FastifyRequest } from 'fastify';

/** A cookie's value as the browser sent it; undefined when it sent none. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const prefix = `${name}=`;
  return (request.headers.cookie ?? '')
    .split(/;\s*/)
    .find((part) => part.startsWith(prefix))
    ?.slice(prefix.length);
}
