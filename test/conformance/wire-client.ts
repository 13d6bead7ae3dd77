/**
 * Raw clients for the transcripts: an HTTP request sent as written (node:http, a fresh connection
 * each time) and a WebSocket that queues every message and its close code.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';
import type { Header } from './transcript-format';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * Sends one request. POST carries `Content-Type: application/json` unless a header line sets another
 * (an empty value removes it); a body carries its Content-Length unless a header line sets one, or sets
 * Transfer-Encoding. Resolves as soon as the whole answer is read, even when the server
 * closes the connection before the body was sent in full (a 413).
 */
export function sendHttp(base: string, method: string, path: string, headers: readonly Header[], body: Buffer): Promise<HttpAnswer> {
  const out: Record<string, string> = method === 'POST' ? { 'Content-Type': 'application/json' } : {};
  // node:http frames a GET body with nothing at all; a body always gets its length (unless a header line says otherwise).
  if (body.length > 0 || method === 'POST') out['Content-Length'] = String(body.length);
  for (const [name, value] of headers) {
    const key = Object.keys(out).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
    if (value === '') delete out[key];
    else out[key] = value;
    if (name.toLowerCase() === 'transfer-encoding') delete out['Content-Length'];
  }
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(base + path, { method, headers: out, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (!answered) setTimeout(() => (answered ? undefined : reject(err)), 200);
    });
    if (body.length > 0 || method === 'POST') req.end(body);
    else req.end();
  });
}

export type WsEvent = { readonly text: string } | { readonly close: number };

/** A WebSocket connection whose messages and close wait in order until a step reads them. */
export class WireSocket {
  private readonly events: WsEvent[] = [];
  private wake: (() => void) | undefined;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: WebSocket.RawData) => this.push({ text: rawText(data) }));
    socket.on('close', (code) => this.push({ close: code }));
    socket.on('error', () => undefined);
  }

  /** Opens a connection; a refused handshake resolves with the HTTP answer instead. */
  static open(url: string, headers: readonly Header[] = []): Promise<WireSocket | HttpAnswer> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers: Object.fromEntries(headers), perMessageDeflate: false });
      socket.once('open', () => resolve(new WireSocket(socket)));
      socket.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      });
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.socket.readyState === WebSocket.CLOSED || this.socket.readyState === WebSocket.CLOSING;
  }

  /** Sends a text frame carrying exactly these bytes. */
  send(bytes: Buffer): void {
    this.socket.send(bytes, { binary: false });
  }

  /** The next message or close, waiting up to `timeoutMs`; undefined when none came. */
  async next(timeoutMs: number): Promise<WsEvent | undefined> {
    if (this.events.length === 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    return this.events.shift();
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }

  private push(event: WsEvent): void {
    this.events.push(event);
    this.wake?.();
  }
}

function rawText(data: WebSocket.RawData): string {
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString('utf8');
}
