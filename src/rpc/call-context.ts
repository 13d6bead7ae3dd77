/** How a call reached the gateway. */
export type Transport = 'uri' | 'jsonrpc' | 'ws';

/** A WebSocket connection as the dispatcher and subscription methods see it. */
export interface RpcConnection {
  /** Stable identity of the client (its remote ip:port), used as the subscriber id. */
  readonly id: string;
  /**
   * Sends one JSON text frame (a string or its UTF-8 bytes). Returns a promise only when the frame has
   * to wait for room in the send queue; it resolves true once the frame is handed to the socket, false
   * when it was dropped: the connection closed, or no room came within `timeoutMs`.
   */
  send(frame: string | Buffer, timeoutMs?: number): Promise<boolean> | undefined;
  /** Called once when the connection closes. */
  onClose(listener: () => void): void;
}

export interface CallContext {
  readonly transport: Transport;
  /** Remote address of the client. */
  readonly remote: string;
  /** The request's id as received (for WS subscriptions that reuse it). */
  readonly requestId: unknown;
  /** Present on WebSocket calls. */
  readonly connection?: RpcConnection;
  /** Id of the HTTP request that carried the call (the client's X-Request-Id when sane), for logs. */
  readonly correlationId?: string;
}
