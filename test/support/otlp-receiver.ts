/**
 * OpenTelemetry collectors for tests, on real sockets: OTLP over HTTP (`POST /v1/traces`, the JSON
 * encoding decoded into spans, protobuf kept as bytes) and OTLP over gRPC (the TraceService's Export
 * on HTTP/2, each message kept as bytes: a trace id shows in them as its 16 raw bytes).
 */
import { createServer } from 'node:http';
import { constants, createServer as createHttp2Server, type ServerHttp2Stream } from 'node:http2';
import type { Server as NetServer, Socket } from 'node:net';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** The resource's service.name. */
  readonly service: string;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[] };
type OtlpExport = { resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[] };

function valueOf(v: OtlpValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue ?? '';
}

function attributesOf(list: readonly OtlpAttribute[] = []): Record<string, string | number | boolean> {
  return Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));
}

/** The spans of one OTLP/JSON export request. */
function spansOf(body: OtlpExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind, attributes: attributesOf(s.attributes), service })),
    );
  });
}

/** A receiver's server on an ephemeral loopback port; closing it also cuts the connections it holds. */
abstract class Receiver {
  private server: NetServer | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  protected async listen(server: NetServer): Promise<void> {
    this.server = server;
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export class OtlpHttpReceiver extends Receiver {
  readonly spans: ReceivedSpan[] = [];
  /** Bodies sent as protobuf (`application/x-protobuf`). */
  readonly protobuf: Buffer[] = [];
  /** Paths and content types of the export requests. */
  readonly requests: { path: string; type: string }[] = [];

  /** The traces endpoint to give an exporter. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1/traces`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const type = req.headers['content-type'] ?? '';
        this.requests.push({ path: req.url ?? '', type });
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        const body = Buffer.concat(chunks);
        if (type.startsWith('application/json')) this.spans.push(...spansOf(JSON.parse(body.toString('utf8')) as OtlpExport));
        else this.protobuf.push(body);
        res.writeHead(200, { 'content-type': type.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' }).end(type.startsWith('application/json') ? '{}' : '');
      });
    });
    await this.listen(server);
    return this;
  }
}

const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

export class OtlpGrpcReceiver extends Receiver {
  /** Each ExportTraceServiceRequest received, as its protobuf bytes. */
  readonly messages: Buffer[] = [];

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Whether some message holds `bytes`. */
  holds(bytes: Buffer): boolean {
    return this.messages.some((m) => m.includes(bytes));
  }

  async start(): Promise<this> {
    const server = createHttp2Server();
    server.on('stream', (stream: ServerHttp2Stream, headers) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (headers[constants.HTTP2_HEADER_PATH] !== EXPORT_PATH) {
          stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' }, { endStream: true });
          return;
        }
        // gRPC framing: 1 byte compressed flag, 4 bytes length, then the message.
        const frame = Buffer.concat(chunks);
        for (let at = 0; at + 5 <= frame.length; at += 5 + frame.readUInt32BE(at + 1)) this.messages.push(frame.subarray(at + 5, at + 5 + frame.readUInt32BE(at + 1)));
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        // An empty ExportTraceServiceResponse.
        stream.end(Buffer.from([0, 0, 0, 0, 0]));
      });
    });
    await this.listen(server);
    return this;
  }
}
