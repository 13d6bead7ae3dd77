import type { RpcError } from './errors';
import type { CallExpiry } from './within-deadline';

/** How a call reached the gateway. */
export type Transport = 'uri' | 'jsonrpc' | 'ws';

/** JSON text already serialised, in pieces (a shared tail serialised once for many subscribers). */
export type JsonText = string | Buffer | readonly (string | Buffer)[];

/** A WebSocket connection as the engine sees it. */
export interface RpcConnection {
  /** Stable identity of the client (its remote ip:port), used as the subscriber id. */
  readonly id: string;
  /**
   * Sends one JSON text frame. Returns a promise only when the frame has to wait for room in the send
   * queue; it resolves true once the frame is handed to the socket, false when it was dropped: the
   * connection closed, or no room came within `timeoutMs`.
   */
  send(frame: string | Buffer, timeoutMs?: number): Promise<boolean> | undefined;
  /** Called once when the connection closes. */
  onClose(listener: () => void): void;
}

/** The notifications of one subscription, framed by the interface's dialect. */
export interface NotificationStream {
  /** Sends one result (its JSON text); resolves as RpcConnection.send does. */
  send(result: JsonText, timeoutMs?: number): Promise<boolean> | undefined;
  /** Tells the client the subscription ended with `error`. */
  fail(error: RpcError): void;
}

/** The port through which a WebSocket call pushes notifications later (subscriptions). */
export interface NotificationPort {
  /** The client's connection id (the subscriber). */
  readonly subscriber: string;
  /** The stream of the subscription `subscriptionId` this call creates. */
  stream(subscriptionId: string): NotificationStream;
  /** Called once when the connection closes. */
  onClose(listener: () => void): void;
}

/**
 * Who is calling, as the transport established it before the engine ran: the client's IP (from
 * `X-Forwarded-For` only behind a trusted proxy) and, where API keys are configured, the key's name
 * and what it grants. Never the key itself.
 */
export interface Caller {
  /** The client's IP address (no port). */
  readonly ip: string;
  /** The API key presented, by its name; absent when keys are off. */
  readonly key?: CallerKey;
}

/** What an API key grants on top of the interface's configuration. */
export interface CallerKey {
  /** The key's name (for logs and budgets); never the secret. */
  readonly name: string;
  /** Method groups (EVM namespaces, node categories) served to this key even when not enabled for all. */
  readonly groups: ReadonlySet<string>;
  /** Unsafe methods served to this key even with `[rpc] unsafe = false`. */
  readonly unsafe: boolean;
}

export interface CallContext {
  readonly transport: Transport;
  /** Remote address of the client. */
  readonly remote: string;
  /** Who is calling (client IP, API key): the same for every member of a batch and message of a connection. */
  readonly caller?: Caller;
  /** The request's id as received. */
  readonly requestId: unknown;
  /** Present on WebSocket calls: where subscriptions push their notifications. */
  readonly notifications?: NotificationPort;
  /** Id of the HTTP request that carried the call (the client's X-Request-Id when sane), for logs. */
  readonly correlationId?: string;
  /** The HTTP request's headers, whence the client's trace context is read (W3C `traceparent`). */
  readonly traceHeaders?: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * Fires when the call's deadline passes (its client has been told it timed out): long work stops
   * then. Absent when the call has no deadline.
   */
  readonly signal?: AbortSignal;
  /** The call's deadline as a flag, set when `signal` fires: what an upstream read is abandoned by. */
  readonly expiry?: CallExpiry;
}
