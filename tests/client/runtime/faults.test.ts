// @vitest-environment happy-dom
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { reportFault, reportUncaughtFaults } from '../../../src/client/runtime/faults.js';

const ORIGIN = 'http://localhost:3000';
const fetchMock = vi.fn<(path: string, init: RequestInit) => Promise<Response>>();
/** The reports sent so far, as the server receives them. */
const reports = () => fetchMock.mock.calls.map(([path, init]) => ({ path, method: init.method, body: JSON.parse(String(init.body)) as unknown }));
/** A report goes out once its chunk has loaded (loaded ahead below): a few turns later. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

function fault(ErrorType: new (message: string) => Error, message: string, frames: string[]): Error {
  const error = new ErrorType(message);
  error.stack = [`${error.name}: ${message}`, ...frames.map((frame) => `    ${frame}`)].join('\n');
  return error;
}

beforeAll(async () => {
  await import('../../../src/client/runtime/faultReport.js');
  vi.stubGlobal('fetch', fetchMock);
  // On a resume link: its id and token are in the address, and must not be in a report.
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${ORIGIN}/3f2a9c/secret-token?email=driver@example.com`);
  document.body.innerHTML = '<script type="application/json" id="app-config">{"build":"Xy_12-ab"}</script>';
});
beforeEach(() => fetchMock.mockReset().mockResolvedValue(new Response(null, { status: 204 })));
afterAll(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('reportFault', () => {
  it('reports a fault of our code once: its name and message, its frames in our scripts without the origin, the build and the route pattern', async () => {
    const error = fault(TypeError, "Cannot read properties of undefined (reading 'id')", [
      `at send (${ORIGIN}/assets/chunks/StepPage-ABCD1234.js:1:2345)`,
      'at https://js.stripe.com/v3/:1:99',
      `at ${ORIGIN}/assets/main-EFGH5678.js:2:10`,
    ]);
    reportFault(error);
    reportFault(error);
    await settle();
    expect(reports()).toEqual([
      {
        path: '/client-errors',
        method: 'POST',
        body: {
          name: 'TypeError',
          message: "Cannot read properties of undefined (reading 'id')",
          stack: ['at send (/assets/chunks/StepPage-ABCD1234.js:1:2345)', 'at /assets/main-EFGH5678.js:2:10'],
          build: 'Xy_12-ab',
          route: '/:id/:token',
        },
      },
    ]);
  });

  it('sends a message on one line, cut to 500 characters, without what it quotes (JSON.parse quotes its input)', async () => {
    reportFault(fault(SyntaxError, `Unexpected token 'd', "driver@example.com\nsecond line" is not valid JSON ${'x'.repeat(600)}`, []));
    await settle();
    const [report] = reports();
    expect((report?.body as { message: string }).message).toBe(`Unexpected token 'd', "…" is not valid JSON ${'x'.repeat(600)}`.slice(0, 500));
  });

  it('reports nothing the network or a service caused: a script that did not load, Firebase’s answer, a request that timed out, a thrown non-error', async () => {
    reportFault(new TypeError(`Failed to fetch dynamically imported module: ${ORIGIN}/assets/chunks/identity-ABCD1234.js`));
    reportFault(new TypeError('Importing a module script failed.'));
    reportFault(Object.assign(new Error('Firebase: Error (auth/network-request-failed).'), { name: 'FirebaseError' }));
    reportFault(new DOMException('The operation timed out.', 'TimeoutError'));
    reportFault('a string');
    await settle();
    expect(reports()).toEqual([]);
  });
});

describe('reportUncaughtFaults', () => {
  it('reports what no handler caught: a thrown error, a rejected promise no one awaited', async () => {
    reportUncaughtFaults();
    window.dispatchEvent(new ErrorEvent('error', { error: fault(RangeError, 'Invalid time value', []) }));
    window.dispatchEvent(Object.assign(new Event('unhandledrejection'), { reason: fault(ReferenceError, 'stepId is not defined', []) }));
    await settle();
    expect(reports().map(({ body }) => (body as { name: string; message: string }).message)).toEqual(['Invalid time value', 'stepId is not defined']);
  });
});
