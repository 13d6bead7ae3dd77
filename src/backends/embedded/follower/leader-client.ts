/**
 * A follower's line to its leader's node RPC: JSON-RPC calls and batches over HTTP with keep-alive
 * connections.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Json, JsonObject } from '../../node-backend';

/** The leader answered a JSON-RPC error; `data` carries CometBFT's text (e.g. a mempool refusal). */
export class LeaderRpcError extends Error {
  override readonly name = 'LeaderRpcError';

  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
    readonly data: string | undefined,
  ) {
    super(`${method}: ${rpcMessage}${data === undefined ? '' : ` (${data})`}`);
  }
}

export interface LeaderCall {
  method: string;
  params: JsonObject;
}

interface RpcReply {
  id?: Json;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
}

export class LeaderClient {
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  private nextId = 0;

  constructor(
    /** The leader's node RPC base URL (http:// or https://). */
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {
    const secure = url.startsWith('https:');
    this.agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.send = secure ? httpsRequest : httpRequest;
  }

  /** The leader's /websocket URL. */
  get websocketUrl(): string {
    return `${this.url.replace(/^http/, 'ws').replace(/\/$/, '')}/websocket`;
  }

  async call(method: string, params: JsonObject = {}): Promise<JsonObject> {
    const id = this.nextId++;
    const reply = (await this.post(JSON.stringify({ jsonrpc: '2.0', id, method, params }))) as RpcReply;
    return resultOf(method, reply);
  }

  /** One HTTP request for every call; each must succeed. Results come in the calls' order. */
  async batch(calls: LeaderCall[]): Promise<JsonObject[]> {
    const first = this.nextId;
    this.nextId += calls.length;
    const body = JSON.stringify(calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })));
    const answer = await this.post(body);
    // CometBFT answers a batch of one with a bare response.
    const replies = (Array.isArray(answer) ? answer : [answer]) as RpcReply[];
    const byId = new Map(replies.map((r) => [r.id, r]));
    return calls.map((c, i) => resultOf(c.method, byId.get(first + i)));
  }

  close(): void {
    this.agent.destroy();
  }

  private post(body: string): Promise<Json> {
    return new Promise((resolve, reject) => {
      const req = this.send(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve(JSON.parse(text) as Json);
            } catch {
              reject(new Error(`the leader answered HTTP ${res.statusCode} with ${text.slice(0, 200)}`));
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer from the leader within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }
}

function resultOf(method: string, reply: RpcReply | undefined): JsonObject {
  if (reply === undefined || reply === null) throw new Error(`the leader left ${method} unanswered`);
  if (reply.error !== undefined) {
    const { code, message, data } = reply.error;
    throw new LeaderRpcError(method, code, message, typeof data === 'string' ? data : undefined);
  }
  if (reply.result === null || typeof reply.result !== 'object' || Array.isArray(reply.result)) {
    throw new Error(`the leader answered ${method} without a result object`);
  }
  return reply.result;
}
