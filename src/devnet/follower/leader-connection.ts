/**
 * A follower's line to its leader's node RPC. The devnet only states what it needs; the gateway
 * supplies the connection (Devnet.open's `connectLeader`).
 */
import type { JsonObject } from '../json';

export interface LeaderConnection {
  /** The leader's node RPC base URL (http:// or https://). */
  readonly url: string;
  /** The leader's /websocket URL. */
  readonly websocketUrl: string;
  /** The call's result object; an error the leader answers is thrown as a LeaderAnswerError. */
  call(method: string, params?: JsonObject): Promise<JsonObject>;
  close(): void;
}

/** The leader answered a call with a JSON-RPC error. */
export class LeaderAnswerError extends Error {
  override readonly name = 'LeaderAnswerError';

  constructor(
    message: string,
    /** CometBFT's detail text (`data`), the part a client reads; may be empty. */
    readonly detail: string,
  ) {
    super(message);
  }
}
