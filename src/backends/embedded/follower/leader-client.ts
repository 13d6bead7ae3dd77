/**
 * A follower's line to its leader's node RPC: JSON-RPC calls over the upstream backend's NodeClient
 * (keep-alive connections), each answer checked to be a result object.
 */
import type { JsonObject } from '../../node-backend';
import { NodeClient } from '../../upstream/node-client';

export class LeaderClient {
  private readonly node: NodeClient;

  constructor(
    /** The leader's node RPC base URL (http:// or https://). */
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.node = new NodeClient(url);
  }

  /** The leader's /websocket URL. */
  get websocketUrl(): string {
    return `${this.url.replace(/^http/, 'ws').replace(/\/$/, '')}/websocket`;
  }

  /** A JSON-RPC error answered by the leader is thrown as an UpstreamAnswerError (its `detail`: CometBFT's text). */
  async call(method: string, params: JsonObject = {}): Promise<JsonObject> {
    const { result } = await this.node.call(method, params, this.timeoutMs);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw new Error(`the leader answered ${method} without a result object`);
    }
    return result;
  }

  close(): void {
    this.node.close();
  }
}
