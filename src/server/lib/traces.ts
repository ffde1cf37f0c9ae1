/**
 * Traces (docs/operations.md, "Traces"): OpenTelemetry's SDK, started before the server loads
 * (server/tracing.ts) when OpenTelemetry's own variables name where to send them. Off, none of the
 * SDK is loaded; the API used here is its no-op facade.
 */
import { type ProxyTracerProvider, trace } from '@opentelemetry/api';

/** OTLP's endpoint is set (for every signal, or for traces) and the SDK is not turned off. */
export function tracesExported(env: Record<string, string | undefined>): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

/** What each log line written inside a traced request carries: its trace and span, to find one from the other. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Sends the spans still waiting for their batch, before the process exits (main.ts); nothing when traces are off. */
export async function flushTraces(): Promise<void> {
  const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() as { forceFlush?: () => Promise<void> };
  await provider.forceFlush?.();
}
