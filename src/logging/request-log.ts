import type { Logger } from 'pino';
import type { CallContext } from '../rpc/call-context';
import type { RpcRequest } from '../rpc/dialect';
import type { CallObserver, Outcome } from '../rpc/engine';

const MAX_TEXT = 120;

function clip(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value.length <= MAX_TEXT ? value : `${value.slice(0, MAX_TEXT)}…`;
}

/**
 * One JSON line per RPC call: `debug` for a success, `warn` for an error, with the id of the HTTP
 * request that carried it (`reqId`: shared by the members of a batch) or, for a WebSocket message, one
 * of its own. Parameters and results are never logged (they hold transactions and keys); error texts
 * are clipped. At the default level a successful call costs one level check.
 */
export class RequestLog {
  private unbound = 0;

  constructor(private readonly logger: Logger) {}

  /** The observer that logs one surface's calls (`node`, `evm`). */
  observer(surface: string): CallObserver {
    return { onCall: (request, ctx, outcome, startedAt) => this.log(surface, request, ctx, outcome, startedAt) };
  }

  private log(surface: string, request: RpcRequest, ctx: CallContext, outcome: Outcome, startedAt: bigint): void {
    if (!this.logger.isLevelEnabled(outcome.ok ? 'debug' : 'warn')) return;
    const ms = Number(process.hrtime.bigint() - startedAt) / 1e6;
    const line: Record<string, unknown> = {
      reqId: ctx.correlationId ?? `${ctx.transport}-${(this.unbound = (this.unbound + 1) % Number.MAX_SAFE_INTEGER).toString(36)}`,
      interface: surface,
      transport: ctx.transport,
      method: clip(request.method),
      id: clip(request.id),
      remote: ctx.remote,
      ms: Math.round(ms * 1000) / 1000,
    };
    if (outcome.ok) {
      this.logger.debug(line, 'rpc call');
      return;
    }
    const { code, message, data } = outcome.error;
    line.code = code;
    line.error = clip(message);
    if (data !== undefined) line.data = clip(typeof data === 'string' ? data : JSON.stringify(data));
    this.logger.warn(line, 'rpc error');
  }
}
