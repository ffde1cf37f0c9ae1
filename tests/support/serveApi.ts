/**
 * A stand-in for the API in component and runtime tests: `fetch` answers by "METHOD path", and every
 * request the page makes is recorded (its bearer and its JSON body) for the test to read.
 */
import { vi } from 'vitest';

export interface Sent {
  method: string;
  path: string;
  bearer: string | null;
  body: unknown;
}

export function serveApi(answers: Record<string, { status: number; body: Record<string, unknown> }>): Sent[] {
  const sent: Sent[] = [];
  vi.stubGlobal('fetch', async (path: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    sent.push({
      method,
      path,
      bearer: new Headers(init.headers).get('Authorization'),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
    });
    const answer = answers[`${method} ${path}`] ?? { status: 404, body: { message: 'Not found' } };
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'Content-Type': 'application/json' } });
  });
  return sent;
}
