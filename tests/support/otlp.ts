/**
 * A collector's OTLP/HTTP endpoint, as the server sends traces to one (src/server/tracing.ts): a
 * plain HTTP server that takes POST /v1/traces in protobuf and keeps every span, decoded as far as
 * the tests read them, and every body as sent.
 */
import { createServer } from 'node:http';

export interface Span {
  traceId: string;
  spanId: string;
  /** '' for a trace's root. */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

/** SpanKind SERVER, as OTLP numbers it (SPAN_KIND_SERVER). */
export const SERVER_SPAN = 2;

interface Field {
  number: number;
  /** A varint's value, or a length-delimited field's bytes; fixed-width fields are skipped. */
  value: number | Buffer;
}

/** The fields of one protobuf message (the wire format: a tag, then a varint, 8 bytes, bytes or 4 bytes). */
function fieldsOf(message: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let scale = 1; ; scale *= 128) {
      const byte = message[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
  };
  while (at < message.length) {
    const tag = varint();
    const wire = tag % 8;
    const number = Math.floor(tag / 8);
    if (wire === 0) fields.push({ number, value: varint() });
    else if (wire === 2) {
      const length = varint();
      fields.push({ number, value: message.subarray(at, at + length) });
      at += length;
    } else at += wire === 1 ? 8 : 4;
  }
  return fields;
}

const each = (message: Buffer, number: number) =>
  fieldsOf(message)
    .filter((field) => field.number === number)
    .map((field) => field.value);
const bytes = (message: Buffer, number: number) => (each(message, number)[0] as Buffer | undefined) ?? Buffer.alloc(0);

/** An AnyValue: string (1), bool (2) or int (3); what else a span may hold is not read here. */
function valueOf(anyValue: Buffer): string | number | boolean {
  const [field] = fieldsOf(anyValue);
  if (field?.number === 1) return (field.value as Buffer).toString();
  if (field?.number === 2) return field.value === 1;
  return field?.value as number;
}

/** ExportTraceServiceRequest → ResourceSpans (1) → ScopeSpans (2) → Span (2). */
function spansOf(request: Buffer): Span[] {
  return each(request, 1).flatMap((resourceSpans) =>
    each(resourceSpans as Buffer, 2).flatMap((scopeSpans) =>
      each(scopeSpans as Buffer, 2).map((value) => {
        const span = value as Buffer;
        return {
          traceId: bytes(span, 1).toString('hex'),
          spanId: bytes(span, 2).toString('hex'),
          parentSpanId: bytes(span, 4).toString('hex'),
          name: bytes(span, 5).toString(),
          kind: (each(span, 6)[0] as number | undefined) ?? 0,
          attributes: Object.fromEntries(each(span, 9).map((keyValue) => [bytes(keyValue as Buffer, 1).toString(), valueOf(bytes(keyValue as Buffer, 2))])),
        };
      }),
    ),
  );
}

export interface Collector {
  /** http://127.0.0.1:<port>, for OTEL_EXPORTER_OTLP_ENDPOINT */
  url: string;
  spans: Span[];
  /** Every body received, as sent: what no span may hold is looked for here, events and statuses included. */
  bodies: Buffer[];
  close(): Promise<void>;
}

export async function startCollector(): Promise<Collector> {
  const spans: Span[] = [];
  const bodies: Buffer[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (request.url === '/v1/traces') {
        bodies.push(body);
        spans.push(...spansOf(body));
      }
      // An empty ExportTraceServiceResponse: everything accepted.
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    spans,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
