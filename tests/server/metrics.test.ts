import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { everyInterval } from '../../src/server/lib/backgroundPass.js';
import { metricsPlugin } from '../../src/server/plugins/metrics.js';
import { bearer, signUp, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const scrape = async (app = server.app, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: '/metrics', headers });

/** Every family /metrics shows, by name (a histogram's samples carry suffixes; its `# TYPE` line does not). */
const familiesOf = (text: string) => new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!));

describe('/metrics', () => {
  it('shows every family: requests, Node, the pools, the queues, the passes, uploads and driver events', async () => {
    await signUp(server.app);
    await server.app.inject({ method: 'GET', url: '/healthz' });
    const response = await scrape();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = familiesOf(response.body);
    for (const name of [
      'onramp_http_request_duration_seconds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
      'onramp_db_pool_connections',
      'onramp_notices_due',
      'onramp_notices_oldest_due_age_seconds',
      'onramp_notice_delivery_failures_total',
      'onramp_webhook_deliveries_pending',
      'onramp_webhook_deliveries_oldest_pending_age_seconds',
      'onramp_webhook_delivery_failures_total',
      'onramp_background_pass_duration_seconds',
      'onramp_background_pass_failures_total',
      'onramp_uploads_in_flight',
      'onramp_driver_events_total',
      'onramp_retention_deleted_total',
      'onramp_retention_last_pass_duration_seconds',
      'onramp_retention_last_pass_age_seconds',
    ]) {
      expect(families, name).toContain(name);
    }
    expect(response.body).toContain('onramp_http_request_duration_seconds_count{method="GET",route="/healthz",status_code="200"} 1');
    expect(response.body).toContain('onramp_driver_events_total{type="driver.signed_up"} 1');
    expect(response.body).toMatch(/^onramp_notices_due \d+$/m);
    expect(response.body).toMatch(/^onramp_webhook_deliveries_pending \d+$/m);
  });

  it("labels a request with its route's pattern, never the address it was sent to", async () => {
    const id = randomUUID();
    await server.app.inject({ method: 'GET', url: `/driver/status/${id}` });
    await server.app.inject({ method: 'GET', url: `/no-such-api/${id}` });
    const { body } = await scrape();
    expect(body).not.toContain(id);
    expect(body).toMatch(/onramp_http_request_duration_seconds_count\{method="GET",route="\/driver\/status\/:id",status_code="\d+"\} 1/);
  });

  it("times each background pass under its name, and counts a pass's failure", async () => {
    // Passes of an app of its own, on the same database: one that succeeds and one that fails.
    const app = Fastify();
    app.decorate('db', server.db);
    app.decorate('now', () => new Date());
    await app.register(metricsPlugin);
    everyInterval(app, { name: 'passing pass', intervalMs: 60_000, atStart: true, run: () => server.db.query('SELECT 1') });
    everyInterval(app, { name: 'failing pass', intervalMs: 60_000, atStart: true, run: () => Promise.reject(new Error('database away')) });
    await expect.poll(() => app.metrics.exposition()).toMatch(/^onramp_background_pass_duration_seconds_count\{pass="passing pass"\} 1$/m);
    await expect.poll(() => app.metrics.exposition()).toMatch(/^onramp_background_pass_failures_total\{pass="failing pass"\} 1$/m);
    await app.close();
  });

  it('answers no one in production without METRICS_TOKEN', async () => {
    const production = await server.buildAnother({ production: true, metricsToken: null });
    for (const headers of [{}, bearer('any-token-at-all')]) {
      const refused = await scrape(production, headers);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual({ message: 'The metrics need the bearer token METRICS_TOKEN sets.' });
    }
  });

  it('asks for METRICS_TOKEN as a bearer once it is set', async () => {
    const token = randomBytes(32).toString('base64url');
    const production = await server.buildAnother({ production: true, metricsToken: token });
    for (const headers of [{}, bearer('not-the-token'), { authorization: token }]) {
      const refused = await scrape(production, headers);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual({ message: 'The metrics need the bearer token METRICS_TOKEN sets.' });
    }
    const allowed = await scrape(production, bearer(token));
    expect(allowed.statusCode).toBe(200);
    expect(allowed.body).toContain('onramp_http_request_duration_seconds');
  });
});

describe('the dashboard and the alerts', () => {
  /** The metric names a PromQL expression reads (a histogram's by its family). */
  const metricsIn = (expression: string) =>
    [...expression.matchAll(/\b((?:onramp|nodejs|process)_[a-z0-9_]+)/g)].map((match) => match[1]!.replace(/_(bucket|count|sum)$/, ''));

  it('reads only metrics /metrics shows, from valid JSON and YAML', async () => {
    const dashboard = JSON.parse(await readFile('ops/grafana/onramp.json', 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
    const rules = parse(await readFile('ops/prometheus/alerts.yml', 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const expressions = [
      ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
      ...rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr)),
    ];
    const read = new Set(expressions.flatMap(metricsIn));
    expect(read.size).toBeGreaterThan(10);
    const shown = familiesOf((await scrape()).body);
    expect([...read].filter((name) => !shown.has(name))).toEqual([]);
    expect(rules.groups.flatMap((group) => group.rules.map((rule) => rule.alert))).toEqual([
      'OnrampServerErrors',
      'OnrampSlowRequests',
      'OnrampNoticesStuck',
      'OnrampNoticesFailing',
      'OnrampWebhookDeliveriesFailing',
      'OnrampWebhookDeliveriesStuck',
      'OnrampBackgroundPassFailing',
      'OnrampRetentionPassLate',
    ]);
  });
});
