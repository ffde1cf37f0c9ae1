import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestServer, type TestServer } from '../../support/server.js';
import type { ClientErrorReport } from '../../../src/shared/generated/clientErrorReport.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const report: ClientErrorReport = {
  name: 'TypeError',
  message: "Cannot read properties of undefined (reading 'id')",
  stack: ['at send (/assets/chunks/StepPage-ABCD1234.js:1:2345)'],
  build: 'aB3_x-9',
  route: '/resume/:id/:token',
};

const send = (payload: unknown, remoteAddress = '198.51.100.40') =>
  server.app.inject({ method: 'POST', url: '/client-errors', remoteAddress, payload: payload as object });

describe('POST /client-errors', () => {
  it('takes a report of the browser app’s fault and writes it to the log as a warning', async () => {
    const response = await send(report);
    expect(response.statusCode).toBe(204);
    const logged = server.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.clientError !== undefined);
    expect(logged).toMatchObject({ level: 40, msg: 'The browser app failed: a fault of its own code', clientError: report });
  });

  it('refuses a report with a field it does not take (a form’s values), a message on two lines, a stack frame of another script, a route with its values', async () => {
    const cases: [unknown, string][] = [
      [{ ...report, values: { ssn: '123-45-6789' } }, 'Unknown field: values'],
      [{ ...report, message: 'one\nforged log line' }, "message: the error's message, at most 500 characters on one line."],
      [{ ...report, message: 'x'.repeat(501) }, "message: the error's message, at most 500 characters on one line."],
      [
        { ...report, stack: ['at evil (https://elsewhere.example/x.js:1:1)'] },
        "stack: at most 20 frames of the app's own scripts (/assets/…), each at most 300 characters on one line.",
      ],
      [
        { ...report, route: '/resume/3f2a/secret-token?email=a@b.c' },
        `route: the page's route pattern ("/resume/:id/:token"), or "*"; never an address with its values.`,
      ],
      [{ name: 'TypeError' }, 'Send { name, message, stack, build, route }.'],
      [['an array'], 'The request body must be a JSON object.'],
    ];
    for (const [payload, message] of cases) {
      const response = await send(payload);
      expect(response.statusCode, message).toBe(400);
      expect(json(response)).toEqual({ message });
    }
  });

  it('answers 429 with a message once an address has sent its ten reports of the minute', async () => {
    for (let i = 0; i < 10; i++) expect((await send(report, '198.51.100.41')).statusCode).toBe(204);
    const refused = await send(report, '198.51.100.41');
    expect(refused.statusCode).toBe(429);
    expect(json(refused)).toEqual({ message: 'Too many requests. Please wait a minute and try again.' });
    expect((await send(report, '198.51.100.42')).statusCode).toBe(204);
  });
});
