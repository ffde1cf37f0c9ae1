/**
 * Insights for the operator, for reviewers and owners: GET /admin/insights answers the
 * figures of lib/insights.ts (contract: contracts/insights.schema.json#/$defs/insights), and
 * GET /admin/insights/download the same figures as CSV. Query (every part optional):
 * `from`, `to` (YYYY-MM-DD, both days included; the last 30 days by default), `method` (password
 * or a social provider of the flow, e.g. google.com), `language` (en, es…) and `stalledDays` (1–365,
 * 7 by default). The figures name no driver, but each reading is in the audit record, as every
 * reading of drivers' data is.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fileAnswer } from '../lib/routeSchemas.js';
import { isLocale } from '../../shared/locales.js';
import type { Insights, InsightsQueryString } from '../../shared/review.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { FOLD_INTERVAL_MS, foldRunningTotals, insightsOf, type InsightsQuery } from '../lib/insights.js';
import { everyInterval } from '../lib/backgroundPass.js';
import { refusal } from '../serverMessages.js';
import { csvField } from './staff.js';
import { ADMIN_PREFIX, type RouteTable } from '../lib/routeTable.js';

/** The insights, to read and to download (lib/routeTable.ts). */
export const INSIGHTS_ROUTES = {
  insights: { method: 'GET', url: `${ADMIN_PREFIX}/insights` },
  download: { method: 'GET', url: `${ADMIN_PREFIX}/insights/download` },
} as const satisfies RouteTable;

const DEFAULT_DAYS = 30;
const DEFAULT_STALLED_DAYS = 7;
/** A range of at most ten years: a typo in a year shouldn't read the whole table ten times over. */
const MAX_RANGE_DAYS = 3660;
const DAY_MS = 24 * 3600 * 1000;

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** The CSV of the figures: the funnel, the review totals, the turnaround by day and the fix reasons, one table after another. */
export function insightsCsv(insights: Insights): string {
  const text = (value: string | number | null) => csvField(value === null ? null : String(value));
  const table = (header: string[], rows: (string | number | null)[][]) => [header.join(','), ...rows.map((row) => row.map(text).join(','))];
  const { review } = insights;
  const lines = [
    ...table(
      ['from', 'to', 'method', 'language', 'stalledDays', 'drivers', 'timesExact'],
      [[insights.from, insights.to, insights.method ?? 'all', insights.language ?? 'all', insights.stalledDays, insights.drivers, String(insights.timesExact)]],
    ),
    '',
    ...table(
      ['step', 'label', 'completed', 'conversion', 'medianHours', 'p90Hours', 'stalled'],
      insights.steps.map((step) => [step.step, step.label, step.completed, step.conversion, step.medianHours, step.p90Hours, step.stalled]),
    ),
    '',
    ...table(
      ['decisions', 'approved', 'approvalRate', 'medianHours', 'p90Hours'],
      [[review.decisions, review.approved, review.approvalRate, review.medianHours, review.p90Hours]],
    ),
    '',
    ...table(
      ['day', 'decisions', 'medianHours'],
      review.byDay.map((day) => [day.day, day.decisions, day.medianHours]),
    ),
    '',
    ...table(
      ['fixReason', 'count'],
      review.fixReasons.map((fix) => [fix.reason, fix.count]),
    ),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

export async function insightsRoutes(app: FastifyInstance) {
  const readers = { config: { staffRoles: ['reviewer', 'owner'] as const }, onRequest: app.requireStaff };
  const querystring = { $ref: 'insights#/$defs/insightsQueryString' };
  checkBodiesBySchema(app);
  // Every server folds the changes to the running totals in, whichever records them (migration 032).
  everyInterval(app, { name: 'running totals', intervalMs: FOLD_INTERVAL_MS, run: () => foldRunningTotals(app.db) });

  /** The query as the figures take it: its contract checked each part; what depends on the flow and the app, and the range's length, are checked here. */
  function queryOf(request: FastifyRequest<{ Querystring: InsightsQueryString }>): InsightsQuery {
    const { query } = request;
    const to = query.to || dayOf(app.now());
    const from = query.from || dayOf(new Date(Date.parse(to) - (DEFAULT_DAYS - 1) * DAY_MS));
    const span = (Date.parse(to) - Date.parse(from)) / DAY_MS;
    if (span < 0 || span >= MAX_RANGE_DAYS) throw refusal(400, 'staff.badRange', { days: MAX_RANGE_DAYS });
    const methods = ['password', ...(app.callReader.flow.social?.providers.map((provider) => provider.id) ?? [])];
    const method = query.method || null;
    if (method !== null && !methods.includes(method)) throw refusal(400, 'staff.badMethod', { providers: methods.slice(1).join(', ') });
    const language = query.language || null;
    if (language !== null && !isLocale(language)) throw refusal(400, 'staff.badLanguage');
    return { from, to, method, language, stalledDays: query.stalledDays ?? DEFAULT_STALLED_DAYS };
  }

  async function read(request: FastifyRequest, format: 'json' | 'csv', query: InsightsQuery) {
    const insights = await insightsOf(app.db, app.callReader.flow, query, app.now());
    await app.audit.record(request, { action: 'insights.open', details: { format, ...query } });
    return insights;
  }

  app.get<{ Querystring: InsightsQueryString }>(
    INSIGHTS_ROUTES.insights.url,
    { ...readers, schema: { querystring, response: { 200: { $ref: 'insights#/$defs/insights' } } } },
    async (request): Promise<Insights> => read(request, 'json', queryOf(request)),
  );

  app.get<{ Querystring: InsightsQueryString }>(
    INSIGHTS_ROUTES.download.url,
    { ...readers, schema: { querystring, response: { 200: fileAnswer('The figures, as CSV.', 'text/csv') } } },
    async (request, reply) => {
      const query = queryOf(request);
      const insights = await read(request, 'csv', query);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="onramp-insights-${query.from}-${query.to}.csv"`)
        .send(insightsCsv(insights));
    },
  );
}
