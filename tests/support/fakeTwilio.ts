/**
 * A local Twilio-shaped HTTP server for the Twilio transport's tests, which run the real twilio SDK
 * against it: the Programmable Messaging call the transport makes (POST
 * /2010-04-01/Accounts/{AccountSid}/Messages.json), with Twilio's Basic auth, its form encoding,
 * its message resource and its errors (20003 authentication, 21211 invalid number, 21610 opted
 * out), and a way to be down for a while.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentText {
  to: string;
  from?: string;
  messagingServiceSid?: string;
  body: string;
  headers: IncomingHttpHeaders;
}

export interface FakeTwilio {
  /** For TWILIO_API_BASE. */
  url: string;
  accountSid: string;
  authToken: string;
  /** Messages Twilio took, in order. */
  sent: SentText[];
  /** Numbers Twilio calls invalid (error 21211) or opted out (21610). */
  invalidNumbers: Set<string>;
  optedOut: Set<string>;
  /** The next this many requests get a 503, as when Twilio has an outage. */
  failNext(count: number): void;
  close(): Promise<void>;
}

const E164 = /^\+[1-9][0-9]{6,14}$/;

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const sent: SentText[] = [];
  const invalidNumbers = new Set<string>();
  const optedOut = new Set<string>();
  let failures = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: Record<string, unknown>) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      const error = (status: number, code: number, message: string) =>
        answer(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
      if (failures > 0) {
        failures -= 1;
        return error(503, 20503, 'Service Unavailable');
      }
      const path = `/2010-04-01/Accounts/${accountSid}/Messages.json`;
      if (request.method !== 'POST' || request.url !== path) return error(404, 20404, `The requested resource ${request.url} was not found`);
      const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
      if (request.headers.authorization !== expected) return error(401, 20003, 'Authenticate');
      if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return error(400, 20001, 'Unsupported content type');
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const to = form.get('To') ?? '';
      const body = form.get('Body') ?? '';
      const from = form.get('From') ?? undefined;
      const messagingServiceSid = form.get('MessagingServiceSid') ?? undefined;
      if (!from && !messagingServiceSid) return error(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message.");
      if (!body) return error(400, 21602, 'Message body is required.');
      if (!E164.test(to) || invalidNumbers.has(to)) return error(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
      if (optedOut.has(to)) return error(400, 21610, 'Attempt to send to unsubscribed recipient');
      sent.push({ to, from, messagingServiceSid, body, headers: request.headers });
      const now = new Date().toUTCString();
      answer(201, {
        sid: `SM${randomBytes(16).toString('hex')}`,
        account_sid: accountSid,
        to,
        from: from ?? null,
        messaging_service_sid: messagingServiceSid ?? null,
        body,
        status: 'queued',
        num_segments: '1',
        direction: 'outbound-api',
        api_version: '2010-04-01',
        date_created: now,
        date_updated: now,
        date_sent: null,
        error_code: null,
        error_message: null,
        price: null,
        price_unit: 'USD',
        uri: `${path.replace('.json', '')}/SM.json`,
        subresource_uris: {},
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    sent,
    invalidNumbers,
    optedOut,
    failNext: (count) => void (failures = count),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
