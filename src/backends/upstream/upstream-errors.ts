/** How a call to one upstream node can fail: the node's own JSON-RPC error, or no proper answer at all. */

/** The upstream answered with a JSON-RPC error: an answer, not an upstream failure. */
export class UpstreamAnswerError extends Error {
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    /** CometBFT's detail text (`data`), the part a client reads. */
    readonly detail: string,
    /** `data` as answered (EVM: revert data). */
    readonly data?: unknown,
  ) {
    super(detail || rpcMessage);
    this.name = 'UpstreamAnswerError';
  }
}

/** The upstream could not be reached or did not answer properly (connection, timeout, HTTP status, body). */
export class UpstreamFailure extends Error {
  constructor(
    message: string,
    /** `refused`: no connection was made, so the request surely never reached the node. */
    readonly kind: 'refused' | 'connect' | 'timeout' | 'http' | 'body' | 'aborted',
  ) {
    super(message);
    this.name = 'UpstreamFailure';
  }
}
