/**
 * A real HTTP + WebSocket proxy in front of a real upstream (anvil, an embedded-devnet gateway) that a
 * test breaks while it runs: `set(fault)` applies to every request that arrives from then on, so a
 * fault can be switched on and off mid-run. The onward hop is undici (HTTP) and `ws` (WebSocket).
 *
 * - `slow`: the answer after `delayMs`; `hang`: no answer ever (the socket stays open);
 * - `garbage`: 200 with bytes that are not JSON; `partial`: the first half of the real answer, then the
 *   socket is destroyed; `reset`: the socket destroyed as soon as the request arrived;
 * - `http5xx`: 502/503 with a JSON body (a JSON-RPC error envelope, as a provider's gateway writes one)
 *   or a text body; `html`: an nginx-style HTML error page (content-type text/html) with 200 or 502;
 * - `ws-stall`: every WebSocket open now or opened while it lasts stays open and forwards nothing more,
 *   in either direction (a stalled socket stays stalled after the fault is cleared; new ones are fine);
 * - `lie-height`: heights reported by `eth_blockNumber` and `status` (`latest_block_height`) moved by
 *   `by` blocks (negative: behind); `lie-chain`: `eth_chainId`, `net_version` and `status`
 *   (`node_info.network`) report `chain` (an EVM chain id in decimal, or a CometBFT network).
 *
 * Batches are handled member by member. `requests(method)` counts the requests of a method it saw.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent, request } from 'undici';
import WebSocket, { WebSocketServer, type RawData } from 'ws';

export type Fault =
  | { readonly kind: 'none' }
  | { readonly kind: 'slow'; readonly delayMs: number }
  | { readonly kind: 'hang' }
  | { readonly kind: 'garbage' }
  | { readonly kind: 'partial' }
  | { readonly kind: 'http5xx'; readonly status: 502 | 503; readonly body: 'json' | 'text' }
  | { readonly kind: 'html'; readonly status: 200 | 502 }
  | { readonly kind: 'reset' }
  | { readonly kind: 'ws-stall' }
  | { readonly kind: 'lie-height'; readonly by: number }
  | { readonly kind: 'lie-chain'; readonly chain: string };

const GARBAGE = '\u0000\u00ff<<not json>> 7 %%';
const HTML_PAGE = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

interface Bridge {
  stalled: boolean;
  readonly sockets: readonly WebSocket[];
}

export class FaultyUpstream {
  private fault: Fault = { kind: 'none' };
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly agent = new Agent();
  private readonly connections = new Set<Socket>();
  private readonly bridges = new Set<Bridge>();
  private readonly seen = new Map<string, number>();
  private port = 0;

  /** `target`: the upstream's http:// URL (its WebSocket is the same URL with ws://). */
  private constructor(private readonly target: string) {
    this.server = createServer((req, res) => void this.serve(req, res));
    this.server.on('connection', (socket: Socket) => {
      this.connections.add(socket);
      socket.on('close', () => this.connections.delete(socket));
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      this.wss.handleUpgrade(req, socket, head, (client) => this.bridge(client, req.url ?? '/'));
    });
  }

  static async start(target: string): Promise<FaultyUpstream> {
    const proxy = new FaultyUpstream(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.server.address() as AddressInfo).port;
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** From now on every request meets `fault`; `ws-stall` also stalls the WebSockets open now. */
  set(fault: Fault): void {
    this.fault = fault;
    if (fault.kind === 'ws-stall') for (const b of this.bridges) b.stalled = true;
  }

  /** Requests (batch members counted one by one) of `method` seen so far, whatever the fault. */
  requests(method: string): number {
    return this.seen.get(method) ?? 0;
  }

  async close(): Promise<void> {
    for (const b of this.bridges) for (const s of b.sockets) s.terminate();
    for (const s of this.connections) s.destroy();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.agent.close();
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const methods = methodsById(body);
    for (const m of methods.values()) this.seen.set(m, (this.seen.get(m) ?? 0) + 1);
    const fault = this.fault;
    switch (fault.kind) {
      case 'hang':
        return;
      case 'reset':
        return void req.socket.destroy();
      case 'garbage':
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(GARBAGE);
      case 'http5xx': {
        const json = fault.body === 'json';
        const text = json ? '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"upstream unavailable"}}' : 'Service Unavailable';
        return void res.writeHead(fault.status, { 'content-type': json ? 'application/json' : 'text/plain' }).end(text);
      }
      case 'html':
        return void res.writeHead(fault.status, { 'content-type': 'text/html' }).end(HTML_PAGE);
      case 'slow':
        await new Promise((r) => setTimeout(r, fault.delayMs));
        break;
    }
    let answer: { status: number; contentType: string; text: string };
    try {
      const onward = await request(this.target + (req.url ?? '/'), {
        method: req.method as 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
        dispatcher: this.agent,
      });
      answer = { status: onward.statusCode, contentType: String(onward.headers['content-type'] ?? 'application/json'), text: await onward.body.text() };
    } catch {
      return void req.socket.destroy();
    }
    if (fault.kind === 'partial') {
      res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': Buffer.byteLength(answer.text) });
      // Destroyed once the half is on the wire.
      return void res.write(answer.text.slice(0, Math.floor(answer.text.length / 2)), () => res.socket?.destroy());
    }
    const text = fault.kind === 'lie-height' || fault.kind === 'lie-chain' ? rewrite(answer.text, methods, fault) : answer.text;
    res.writeHead(answer.status, { 'content-type': answer.contentType }).end(text);
  }

  /** A client WebSocket joined to one of its own to the upstream, message by message. */
  private bridge(client: WebSocket, path: string): void {
    const onward = new WebSocket(this.target.replace(/^http/, 'ws') + path);
    const bridge: Bridge = { stalled: this.fault.kind === 'ws-stall', sockets: [client, onward] };
    this.bridges.add(bridge);
    const early: Array<{ data: RawData; binary: boolean }> = [];
    client.on('message', (data, binary) => {
      if (bridge.stalled) return;
      if (onward.readyState === WebSocket.OPEN) onward.send(data, { binary });
      else early.push({ data, binary });
    });
    onward.on('open', () => {
      for (const m of early.splice(0)) if (!bridge.stalled) onward.send(m.data, { binary: m.binary });
    });
    onward.on('message', (data, binary) => {
      if (!bridge.stalled && client.readyState === WebSocket.OPEN) client.send(data, { binary });
    });
    const end = () => {
      this.bridges.delete(bridge);
      client.terminate();
      onward.terminate();
    };
    for (const s of [client, onward]) {
      s.on('close', end);
      s.on('error', end);
    }
  }
}

/** The method of each request in a JSON-RPC body (one call or a batch), by id. */
function methodsById(body: string): Map<unknown, string> {
  const methods = new Map<unknown, string>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return methods;
  }
  for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
    const { id, method } = (call ?? {}) as { id?: unknown; method?: unknown };
    if (typeof method === 'string') methods.set(id, method);
  }
  return methods;
}

/** The answer with the lie told in each member that reports a height or a chain. */
function rewrite(text: string, methods: Map<unknown, string>, fault: Extract<Fault, { kind: 'lie-height' | 'lie-chain' }>): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const lie = (member: { id?: unknown; result?: any }) => {
    const method = methods.get(member.id);
    if (member.result === undefined || method === undefined) return member;
    return { ...member, result: fault.kind === 'lie-height' ? liedHeight(method, member.result, BigInt(fault.by)) : liedChain(method, member.result, fault.chain) };
  };
  return JSON.stringify(Array.isArray(parsed) ? parsed.map(lie) : lie(parsed as object));
}

function liedHeight(method: string, result: any, by: bigint): any {
  const moved = (h: bigint) => (h + by > 0n ? h + by : 0n);
  if (method === 'eth_blockNumber') return `0x${moved(BigInt(result)).toString(16)}`;
  if (method === 'status') return { ...result, sync_info: { ...result.sync_info, latest_block_height: moved(BigInt(result.sync_info.latest_block_height)).toString() } };
  return result;
}

function liedChain(method: string, result: any, chain: string): any {
  if (method === 'eth_chainId') return `0x${BigInt(chain).toString(16)}`;
  if (method === 'net_version') return chain;
  if (method === 'status') return { ...result, node_info: { ...result.node_info, network: chain } };
  return result;
}
