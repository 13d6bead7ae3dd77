/**
 * A follower's line to its leader's node RPC: JSON-RPC calls over the upstream backend's JsonRpcClient
 * (keep-alive connections), each answer checked to be a result object.
 */
import { LeaderAnswerError, type LeaderConnection } from '../../devnet/follower/leader-connection';
import type { JsonObject } from '../../rpc/json';
import { JsonRpcClient } from '../upstream/json-rpc-client';
import { UpstreamAnswerError } from '../upstream/upstream-errors';
import { readResult } from '../../rpc/result-json';

export class LeaderClient implements LeaderConnection {
  private readonly node: JsonRpcClient;

  constructor(
    /** The leader's node RPC base URL (http:// or https://). */
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.node = new JsonRpcClient(url);
  }

  /** The leader's /websocket URL. */
  get websocketUrl(): string {
    return `${this.url.replace(/^http/, 'ws').replace(/\/$/, '')}/websocket`;
  }

  /** A JSON-RPC error answered by the leader is thrown as a LeaderAnswerError (its `detail`: CometBFT's text). */
  async call(method: string, params: JsonObject = {}): Promise<JsonObject> {
    const answer = await this.node.call(method, params, this.timeoutMs).catch((err: unknown) => {
      throw err instanceof UpstreamAnswerError ? new LeaderAnswerError(err.message, err.detail) : err;
    });
    const result = readResult(answer.result);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw new Error(`the leader answered ${method} without a result object`);
    }
    return result;
  }

  close(): void {
    this.node.close();
  }
}
