/**
 * What an operator watches (docs/monitoring.md): the requests, the database's connections, the
 * notices and webhook deliveries waiting, the background passes, what the retention pass deleted,
 * the uploads being handled and the drivers' events, in Prometheus' text format (routes/metrics.ts serves it).
 *
 * No label carries what a driver sent: a request is labelled by its route's pattern
 * ("/driver/status/:id"), never its address.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The label of a request no route matched: its path is whatever the client sent. */
const UNMATCHED_ROUTE = 'unmatched';

/** A scrape storm reads the queues from the database at most once in this long. */
const QUEUE_READ_CACHE_MS = 5_000;

export interface Metrics {
  /** The text /metrics answers, and its content type. */
  exposition(): Promise<string>;
  contentType: string;
  /** Runs a background pass, timing it and counting its failure (lib/backgroundPass.ts). */
  measurePass(name: string, run: () => Promise<unknown>): Promise<unknown>;
  /** Uploads being received or stored, by stage (plugins/uploads.ts). */
  uploadsInFlight: Gauge<'stage'>;
  /** A driver's events as the webhook outbox records them (sign-ups, decisions, …), by type. */
  driverEvents: Counter<'type'>;
  /** Notice deliveries that failed: `retried` later, or `given_up`. */
  noticeFailures: Counter<'outcome'>;
  /** Webhook delivery attempts that failed: `retried` later, or `given_up`; or deliveries `held` for their endpoint's unreadable secret. */
  webhookFailures: Counter<'outcome'>;
  /** Records the retention pass deleted, by kind (flows/retention.json's names; plugins/retention.ts). */
  retentionDeleted: Counter<'kind'>;
  /** How long the last retention pass this instance ran took. */
  retentionPassSeconds: Gauge;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

/**
 * Node's own metrics (event loop lag, heap, garbage collection) are the process's: collected once,
 * however many apps the process builds (the tests build many), and shown beside each app's.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

interface QueueCounts {
  noticesDue: number;
  oldestNoticeDueAt: Date | null;
  webhooksPending: number;
  oldestWebhookQueuedAt: Date | null;
  lastRetentionPassAt: Date | null;
}

/**
 * The waiting notices and webhook deliveries, each read from its table's index of pending rows
 * (migrations 006 and 016), and when the last retention pass finished.
 */
async function readQueues(app: FastifyInstance): Promise<QueueCounts> {
  const [notices, webhooks, retention] = await Promise.all([
    app.db.query<{ due: number; oldest: Date | null }>(
      "SELECT count(*)::int AS due, min(next_attempt_at) AS oldest FROM outgoing_notices WHERE status = 'pending' AND next_attempt_at <= $1",
      [app.now()],
    ),
    app.db.query<{ pending: number; oldest: Date | null }>(
      "SELECT count(*)::int AS pending, min(queued_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'",
    ),
    // A row a day (migration 023): small for ever.
    app.db.query<{ finished: Date | null }>('SELECT max(finished_at) AS finished FROM retention_passes'),
  ]);
  return {
    noticesDue: notices.rows[0]!.due,
    oldestNoticeDueAt: notices.rows[0]!.oldest,
    webhooksPending: webhooks.rows[0]!.pending,
    oldestWebhookQueuedAt: webhooks.rows[0]!.oldest,
    lastRetentionPassAt: retention.rows[0]!.finished,
  };
}

const secondsSince = (app: FastifyInstance, at: Date | null) => (at ? Math.max(0, (app.now().getTime() - new Date(at).getTime()) / 1000) : 0);

export const metricsPlugin = fp(
  async (app) => {
    const registry = new Registry();
    const registers = [registry];

    const requestDuration = new Histogram({
      name: 'onramp_http_request_duration_seconds',
      help: 'Requests answered, by method, route pattern and status code, and how long each took.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    // A callback, not a promise: it runs for every answer (the status poll's cost is in its hooks).
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      requestDuration.observe({ method: request.method, route, status_code: reply.statusCode }, reply.elapsedTime / 1000);
      done();
    });

    new Gauge({
      name: 'onramp_db_pool_connections',
      help: "The database pools' connections: total, idle, and requests waiting for one (none with the embedded database).",
      labelNames: ['pool', 'state'],
      registers,
      collect() {
        this.reset();
        for (const [pool, counts] of Object.entries(app.db.pools())) {
          for (const [state, value] of Object.entries(counts)) this.set({ pool, state }, value);
        }
      },
    });

    // One read of the queues serves every gauge of a scrape, and every scrape for a few seconds.
    let queues: { readAt: number; counts: Promise<QueueCounts | null> } | null = null;
    const queueCounts = () => {
      if (!queues || performance.now() - queues.readAt > QUEUE_READ_CACHE_MS) {
        const counts = readQueues(app).catch((error: unknown) => {
          // The database away is /readyz's to report: the scrape answers what it can.
          app.log.warn({ error: String(error) }, 'The metrics could not read the queues');
          return null;
        });
        queues = { readAt: performance.now(), counts };
      }
      return queues.counts;
    };
    const queueGauge = (name: string, help: string, value: (counts: QueueCounts) => number) =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          const counts = await queueCounts();
          if (counts) this.set(value(counts));
          else this.reset();
        },
      });
    queueGauge('onramp_notices_due', 'Notices to drivers due to be sent and not sent yet.', (counts) => counts.noticesDue);
    queueGauge('onramp_notices_oldest_due_age_seconds', 'How long the longest-waiting due notice has been due (0: none).', (counts) =>
      secondsSince(app, counts.oldestNoticeDueAt),
    );
    queueGauge('onramp_webhook_deliveries_pending', 'Webhook deliveries not delivered yet and not given up.', (counts) => counts.webhooksPending);
    queueGauge(
      'onramp_retention_last_pass_age_seconds',
      'How long ago the last daily retention pass finished, whichever instance ran it (0: none yet).',
      (counts) => secondsSince(app, counts.lastRetentionPassAt),
    );
    queueGauge('onramp_webhook_deliveries_oldest_pending_age_seconds', 'How long ago the oldest pending webhook delivery was queued (0: none).', (counts) =>
      secondsSince(app, counts.oldestWebhookQueuedAt),
    );

    const passDuration = new Histogram({
      name: 'onramp_background_pass_duration_seconds',
      help: 'How long each background pass took, by pass.',
      labelNames: ['pass'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
      registers,
    });
    const passFailures = new Counter({
      name: 'onramp_background_pass_failures_total',
      help: 'Background passes that failed, by pass.',
      labelNames: ['pass'],
      registers,
    });

    const metrics: Metrics = {
      async exposition() {
        return `${await processMetrics().metrics()}\n${await registry.metrics()}`;
      },
      contentType: registry.contentType,
      async measurePass(name, run) {
        const end = passDuration.startTimer({ pass: name });
        try {
          return await run();
        } catch (error) {
          passFailures.inc({ pass: name });
          throw error;
        } finally {
          end();
        }
      },
      uploadsInFlight: new Gauge({
        name: 'onramp_uploads_in_flight',
        help: 'Uploaded files being received or stored (re-encoded and sealed), by stage.',
        labelNames: ['stage'],
        registers,
      }),
      driverEvents: new Counter({
        name: 'onramp_driver_events_total',
        help: "Drivers' events recorded for webhooks (sign-ups, approvals, rejections, …), by type.",
        labelNames: ['type'],
        registers,
      }),
      noticeFailures: new Counter({
        name: 'onramp_notice_delivery_failures_total',
        help: 'Notice deliveries that failed, by outcome: retried later, or given up.',
        labelNames: ['outcome'],
        registers,
      }),
      webhookFailures: new Counter({
        name: 'onramp_webhook_delivery_failures_total',
        help: "Webhook delivery attempts that failed, by outcome: retried later, or given up; or held, unattempted, for their endpoint's unreadable secret.",
        labelNames: ['outcome'],
        registers,
      }),
      retentionDeleted: new Counter({
        name: 'onramp_retention_deleted_total',
        help: 'Records the daily retention pass deleted once their time was over, by kind (flows/retention.json).',
        labelNames: ['kind'],
        registers,
      }),
      retentionPassSeconds: new Gauge({
        name: 'onramp_retention_last_pass_duration_seconds',
        help: 'How long the last retention pass this instance ran took.',
        registers,
      }),
    };
    app.decorate('metrics', metrics);
  },
  { name: 'onramp-metrics' },
);
