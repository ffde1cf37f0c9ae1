// Traces as an operator turns them on: the built server, started as `npm run start:prod` starts it,
// with OpenTelemetry's OTLP variables pointing at a collector (here a plain HTTP server taking
// OTLP/HTTP in protobuf) and a real PostgreSQL. A step's send arrives as one trace holding its statements, the
// request's log lines carry its trace id, nothing a driver sent is in a span, and /metrics still counts.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningPostgres, type TestPostgres } from '../../tools/postgres.js';
import { startServerProcess, type ServerProcess } from '../../tools/serverProcess.js';
import { createEmulatorUser, type EmulatorUser } from '../support/identity.js';
import { type Collector, SERVER_SPAN, type Span, startCollector } from '../support/otlp.js';
import { randomPhone, signUpPayload } from '../support/server.js';
import { scaled } from '../support/machineSpeed.js';

describe('traces over OTLP', { tags: ['postgresql'] }, () => {
  let postgres: TestPostgres;
  let collector: Collector;
  let folder: string;
  let server: ServerProcess;
  let user: EmulatorUser;
  let phone: string;

  beforeAll(async () => {
    [postgres, collector] = await Promise.all([runningPostgres(), startCollector()]);
    folder = mkdtempSync(join(tmpdir(), 'onramp-traces-'));
    server = await startServerProcess(
      {
        DATABASE_URL: postgres.url,
        DATA_DIR: join(folder, 'data'),
        STATIC_DIR: join(folder, 'no-web-app'),
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      scaled(90_000),
    );
    user = await createEmulatorUser();
    phone = randomPhone();
    const signUp = await fetch(`${server.url}/auth/driverEmailSignUp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signUpPayload(user, phone)),
    });
    expect(signUp.status, await signUp.text()).toBe(200);
  }, scaled(120_000));

  afterAll(async () => {
    await server?.stop();
    await collector?.close();
    postgres?.remove();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  /** The sign-up's request, as the HTTP server's span (the trace's root) names it. */
  const signUpRoot = () => collector.spans.find((span) => span.kind === SERVER_SPAN && span.attributes['http.route'] === '/auth/driverEmailSignUp');

  it('sends a step as one trace that holds its statements, and each log line of the request carries its trace id', async () => {
    await expect.poll(signUpRoot).toBeDefined();
    const root = signUpRoot()!;
    expect(root.parentSpanId).toBe('');
    expect(root.attributes['http.request.method']).toBe('POST');
    expect(root.attributes['http.response.status_code']).toBe(200);

    // Every span of the trace hangs from the root, and the step's INSERT is among them.
    await expect
      .poll(() => collector.spans.filter((span) => span.traceId === root.traceId && span.attributes['db.system.name'] === 'postgresql').length)
      .toBeGreaterThan(0);
    const inTrace = collector.spans.filter((span) => span.traceId === root.traceId);
    const byId = new Map(inTrace.map((span) => [span.spanId, span]));
    const rootOf = (span: Span): Span => (span.parentSpanId ? rootOf(byId.get(span.parentSpanId)!) : span);
    expect(inTrace.every((span) => rootOf(span) === root)).toBe(true);
    const statements = inTrace.filter((span) => span.attributes['db.system.name'] === 'postgresql').map((span) => String(span.attributes['db.query.text']));
    expect(statements).toContainEqual(expect.stringMatching(/^\s*INSERT INTO drivers\b/i));
    expect(inTrace.map((span) => span.name)).toContain('request');

    // The request's lines, once the last has reached the output.
    const ofRequest = () => {
      const lines = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { reqId?: string; msg: string; trace_id?: string; req?: { url: string } });
      const incoming = lines.find((line) => line.msg === 'incoming request' && line.req?.url === '/auth/driverEmailSignUp');
      return lines.filter((line) => line.reqId === incoming?.reqId).map(({ msg, trace_id }) => ({ msg, trace_id }));
    };
    await expect.poll(ofRequest).toEqual([
      { msg: 'incoming request', trace_id: root.traceId },
      { msg: 'request completed', trace_id: root.traceId },
    ]);
  });

  it('keeps out of every span what a driver sent: answers, tokens, query strings, a resume link’s token', async () => {
    const resumeToken = 'resume-token-secret';
    const paths = [`/${randomUUID()}/${resumeToken}`, `/driver/status/${randomUUID()}?token=query-secret&email=${encodeURIComponent(user.email)}`];
    const served = () => collector.spans.filter((span) => span.kind === SERVER_SPAN).length;
    const before = served();
    for (const path of paths) await fetch(`${server.url}${path}`, { headers: { authorization: 'Bearer header-secret' } });
    await expect.poll(served).toBe(before + paths.length);
    const exported = Buffer.concat(collector.bodies);
    for (const secret of [user.email, phone, phone.slice(2), user.password, user.idToken, resumeToken, 'query-secret', 'header-secret']) {
      expect(exported.includes(secret), `${secret} in a span`).toBe(false);
    }
    expect(collector.spans.filter((span) => span.attributes['url.query'] !== undefined)).toEqual([]);
  });

  it('still counts every answer in /metrics', async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('onramp_http_request_duration_seconds_count{method="POST",route="/auth/driverEmailSignUp",status_code="200"} 1');
  });
});
