/**
 * Traces, when OpenTelemetry's variables ask for them (lib/traces.ts): loaded before the server,
 * because OpenTelemetry follows node:http and pg by patching them as they load. `npm run start:prod`
 * runs `node --import ./build/server/tracing.mjs build/server/main.mjs`; `npm start` imports this
 * first. Off, it loads nothing more.
 *
 * Spans go over OTLP/HTTP in protobuf, as OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT
 * and _COMPRESSION say; OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER(_ARG) and
 * OTEL_BSP_* are read too. The whole Node SDK (gRPC, metrics and logs exporters, which this server
 * does not use: its metrics are /metrics, its logs its own lines) would double the packages traces add.
 *
 * A span holds no more than a log line may: a request's path without its query string or a resume
 * link's token (loggableUrl), a call to another service by its host and port alone (a path or query
 * may carry its key, as a webhook's address or Firebase's `?key=` do), a statement's SQL without its
 * values. No header is recorded.
 */
import { loggableUrl } from './lib/apiPaths.js';
import { tracesExported } from './lib/traces.js';

if (tracesExported(process.env)) {
  const [
    { BatchSpanProcessor, NodeTracerProvider },
    { OTLPTraceExporter },
    { defaultResource, detectResources, envDetector, resourceFromAttributes },
    { registerInstrumentations },
    { HttpInstrumentation },
    { PgInstrumentation },
    { FastifyOtelInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@fastify/otel'),
  ]);
  new NodeTracerProvider({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES over the default name.
    resource: defaultResource()
      .merge(resourceFromAttributes({ 'service.name': 'onramp' }))
      .merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  }).register();
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation({
        // An attribute left undefined is not recorded.
        startIncomingSpanHook: (request) => ({ 'url.path': loggableUrl(request.url ?? '/'), 'url.query': undefined }),
        startOutgoingSpanHook: () => ({ 'url.full': undefined }),
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        requestHook: (span, request) => span.setAttribute('url.path', loggableUrl(request.url)),
      }),
      // Without the statements' values, whatever a later version's default.
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
}
