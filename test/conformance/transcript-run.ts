/**
 * Runs transcript steps against a gateway: which listeners an interface has, how each request kind
 * is sent, and how an answer is written back as a transcript line so that it can be compared.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { BackendKind } from '../../src/config/config.types';
import { startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { startUpstreamGateway } from '../support/upstream';
import { expandRequest, matchPattern, type Captures, type Reply, type Step } from './transcript-format';
import { sendHttp, WireSocket, type HttpAnswer, type WsEvent } from './wire-client';

/** Where an interface listens: `http` serves HTTP requests, `ws` + `wsPath` the default WebSocket. */
export interface Endpoints {
  readonly http: string;
  readonly ws: string;
  readonly wsPath: string;
}

interface Surface {
  readonly flags: Record<string, string>;
  endpoints(gw: TestGateway): Endpoints;
}

export const SURFACES: Record<string, Surface> = {
  'node-rpc': {
    flags: {},
    endpoints: (gw) => ({ http: gw.url, ws: gw.url.replace(/^http/, 'ws'), wsPath: '/websocket' }),
  },
  'evm-rpc': {
    flags: { 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0' },
    endpoints: (gw) => ({ http: gw.evmHttpUrl!, ws: gw.evmWsUrl!, wsPath: '/' }),
  },
};

/**
 * A gateway for one transcript file over `mode`, with the chain at height 1 or more: over its embedded
 * devnet, or in upstream mode in front of an embedded-devnet gateway started with the same flags (its
 * node RPC the `[[upstream.node]]`, its EVM HTTP and WebSocket listeners, if any, the `[[upstream.evm]]`).
 * close() stops everything started for it.
 */
export async function startSurface(surface: string, flags: Record<string, string>, mode: BackendKind = 'embedded'): Promise<{ gw: TestGateway; endpoints: Endpoints }> {
  const spec = SURFACES[surface];
  if (!spec) throw new Error(`no interface named ${surface}`);
  const all = { ...spec.flags, ...flags };
  const devnet = await startTestGateway(all);
  let gw: TestGateway = devnet;
  try {
    await waitForHeight(devnet.url, 1);
    if (mode === 'upstream') {
      const evm = devnet.evmHttpUrl ? [{ name: 'devnet', url: devnet.evmHttpUrl, ws: devnet.evmWsUrl }] : [];
      // As startGatewayOver (test/support/backends.ts) does, which cannot take the devnet's flags: the
      // default health interval, so that a devnet slowed by a busy machine is not taken for down.
      const upstream = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], { evm, settings: { health_check_interval: '1s' }, flags: all });
      gw = {
        ...upstream,
        async close() {
          await upstream.close();
          await devnet.close();
        },
      };
      await waitForHeight(gw.url, 1);
    }
    return { gw, endpoints: spec.endpoints(gw) };
  } catch (err) {
    await gw.close();
    throw err;
  }
}

/** How long a WebSocket reply may take (a block every 200 ms by default), and how long "nothing" is watched. */
const REPLY_TIMEOUT_MS = 10_000;
const QUIET_MS = 300;

/** A text as a transcript writes it: a final newline as the two characters `\n`. */
function lineText(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) + '\\n' : text;
}

function httpLine(answer: HttpAnswer): string {
  return `${answer.status}${answer.body === '' ? '' : ' ' + lineText(answer.body)}`;
}

function eventLine(event: WsEvent | undefined): string {
  if (!event) return '(nothing within the timeout)';
  return 'close' in event ? `close ${event.close}` : lineText(event.text);
}

function headerValue(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/** One expected line next to what came; `ok` when it matched (exactly, or as a pattern). */
export interface Comparison {
  readonly line: number;
  readonly expected: string;
  readonly actual: string;
  readonly ok: boolean;
}

/** The transcript steps of one file, in order, with their captures and the current WebSocket. */
export class TranscriptRun {
  readonly captures: Captures = new Map();
  private socket: WireSocket | undefined;

  constructor(private readonly endpoints: Endpoints) {}

  async close(): Promise<void> {
    await this.socket?.close();
    this.socket = undefined;
  }

  /** Performs a step and compares every reply line with what came. */
  async run(step: Step): Promise<Comparison[]> {
    const request = step.request;
    if (request.kind === 'http') {
      const base = request.listener === 'ws' ? this.endpoints.ws.replace(/^ws/, 'http') : this.endpoints.http;
      const path = expandRequest(request.path, this.captures).toString('latin1');
      const answer = await sendHttp(base, request.method, path, request.headers, expandRequest(request.body, this.captures));
      return this.compareHttp(step.replies[0], answer);
    }
    if (request.kind === 'open') {
      await this.close();
      const opened = await WireSocket.open(this.endpoints.ws + (request.path ?? this.endpoints.wsPath), request.headers);
      if (opened instanceof WireSocket) {
        this.socket = opened;
        return this.compareHttp(step.replies[0], { status: 101, headers: {}, body: '' });
      }
      return this.compareHttp(step.replies[0], opened);
    }
    const socket = await this.openSocket();
    socket.send(expandRequest(request.message, this.captures));
    if (step.replies.length === 0) {
      const event = await socket.next(QUIET_MS);
      return [{ line: step.line, expected: '(nothing)', actual: event ? eventLine(event) : '(nothing)', ok: !event }];
    }
    const out: Comparison[] = [];
    for (const reply of step.replies) {
      const event = await socket.next(REPLY_TIMEOUT_MS);
      const actual = eventLine(event);
      if (reply.kind === 'close') out.push({ line: reply.line, expected: `close ${reply.code}`, actual, ok: actual === `close ${reply.code}` });
      else if (reply.kind === 'text') out.push(this.compare(reply.line, reply.exact, reply.text, event && 'text' in event ? event.text : undefined, actual));
      else throw new Error(`line ${reply.line}: a status line after a WebSocket message`);
    }
    return out;
  }

  private async openSocket(): Promise<WireSocket> {
    if (this.socket && !this.socket.closed) return this.socket;
    const opened = await WireSocket.open(this.endpoints.ws + this.endpoints.wsPath);
    if (!(opened instanceof WireSocket)) throw new Error(`WebSocket refused: ${httpLine(opened)}`);
    this.socket = opened;
    return opened;
  }

  private compareHttp(reply: Reply, answer: HttpAnswer): Comparison[] {
    if (reply.kind !== 'http') throw new Error(`line ${reply.line}: expected a status line`);
    const expected = `${reply.status}${reply.body === '' ? '' : ' ' + lineText(reply.body)}`;
    const out: Comparison[] = [];
    if (reply.exact || answer.status !== reply.status) {
      const actual = httpLine(answer);
      out.push({ line: reply.line, expected, actual, ok: reply.exact ? actual === expected : false });
    } else {
      out.push(this.compare(reply.line, false, reply.body, answer.body, httpLine(answer), `${reply.status} `));
    }
    for (const [name, value] of reply.headers) {
      const actual = headerValue(answer.headers, name);
      out.push({ line: reply.line, expected: `${name}:${value ? ' ' + value : ''}`, actual: `${name}:${actual ? ' ' + actual : ''}`, ok: actual === value });
    }
    return out;
  }

  /** `expected` is the reply text as parsed (a final newline as a byte); `actual` the answer as a line. */
  private compare(line: number, exact: boolean, expected: string, text: string | undefined, actual: string, prefix = ''): Comparison {
    const shown = prefix + lineText(expected);
    if (exact || text === undefined) return { line, expected: shown, actual, ok: exact && actual === shown };
    return { line, expected: shown, actual, ok: matchPattern(expected, text, this.captures) !== undefined };
  }
}
