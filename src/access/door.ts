import type { IncomingMessage } from 'node:http';
import type { CallContext, Caller, Transport } from '../rpc/call-context';
import type { Dialect } from '../rpc/dialect';
import { RateLimitedError, type RpcError } from '../rpc/errors';
import type { RpcInterface } from '../rpc/registration';
import { keyRefusalStatus, type AccessService, type Admission, type IpCapKind } from './access.service';
import { normalizeIp } from './client-address';
import { splitKeyPath } from './key-path';

/** What a body that does not parse counts as against the rate rules: a call of no method. */
const UNPARSED = { method: '', params: undefined, id: null } as const;

/** Why a request is not served: the HTTP status and the JSON-RPC error of the answer. */
export interface Refusal {
  readonly status: 401 | 429 | 503;
  readonly error: RpcError;
}

/**
 * A request past the door, with the path it routes (any `/key/<k>` prefix taken off): admitted (who it
 * is from, and the release of the per-IP place it holds, if any), turned away by the transport's own
 * rule (`turned`: the transport's answer), or refused (a key, a per-IP cap).
 */
export type Pass<Turned = never> =
  | { readonly url: string; readonly caller: Caller; readonly release?: () => void }
  | { readonly url: string; readonly refused: Refusal }
  | ([Turned] extends [never] ? never : { readonly url: string; readonly turned: Turned });

/** What a transport adds to the door: its own rule, judged before any key, and the place a client holds. */
export interface DoorRules<Turned> {
  /** The transport's answer for a request it does not serve (a path, a method, an origin), if any. */
  route?(url: string, req: IncomingMessage): Turned | undefined;
  /** A per-IP place an admitted client holds until it leaves (a WebSocket), with the error at the cap. */
  readonly place?: { readonly kind: IpCapKind; capReached(key: string, max: number): RpcError };
}

/**
 * The one admission step of every transport, HTTP request or WebSocket upgrade alike: who the request
 * is from (see AccessService.admit), the transport's own rule, the API key's refusal, the per-IP place;
 * every refusal is counted under the interface's refusals. Without the access module (an interface
 * booted alone) every request is admitted as from its peer's address. Synchronous unless a key has to be
 * looked up in Redis.
 */
export class Door<Turned = never> {
  constructor(
    private readonly access: AccessService | undefined,
    private readonly rpc: RpcInterface,
    private readonly dialect: Dialect,
    private readonly rules: DoorRules<Turned> = {},
  ) {}

  pass(req: IncomingMessage): Pass<Turned> | Promise<Pass<Turned>> {
    const { key, url } = splitKeyPath(req.url ?? '/');
    if (this.access === undefined) return this.settle(req, url, { caller: { ip: normalizeIp(req.socket.remoteAddress ?? 'unix') } });
    const admission = this.access.admit(req, key);
    return admission instanceof Promise ? admission.then((a) => this.settle(req, url, a)) : this.settle(req, url, admission);
  }

  /**
   * A body that did not parse costs its caller one call all the same, counted under the name `''`: every
   * rule whose globs match any method (`*`) counts it, as it counts an unknown method. Resolves with the
   * dialect's rate-limit error when that call is over budget (the transport answers it instead of the
   * parse error: HTTP 429), undefined otherwise or when no rule applies.
   */
  chargeUnparsed(caller: Caller, transport: Transport, remote: string): RateLimitedError | undefined | Promise<RateLimitedError | undefined> {
    const gate = this.access?.gate;
    if (gate === undefined) return undefined;
    const ctx: CallContext = { transport, remote, caller, requestId: null };
    try {
      const taken = gate(UNPARSED, ctx);
      return taken?.then(
        () => undefined,
        (err: unknown) => this.limited(caller, err),
      );
    } catch (err) {
      return this.limited(caller, err);
    }
  }

  /**
   * The dialect's rate-limit error for a caller known to be over a rule on every method (a body that did
   * not parse found it out), so the transport answers it before reading or parsing the body; undefined
   * otherwise.
   */
  spent(caller: Caller): RateLimitedError | undefined {
    const spent = this.access?.spent.of(caller);
    return spent && this.dialect.rateLimited(spent.limit, spent.retryAfterMs);
  }

  private limited(caller: Caller, err: unknown): RateLimitedError | undefined {
    if (!(err instanceof RateLimitedError)) return undefined;
    this.access?.spent.note(caller, err.limit, err.retryAfterMs);
    return this.dialect.rateLimited(err.limit, err.retryAfterMs);
  }

  private settle(req: IncomingMessage, url: string, admission: Admission): Pass<Turned> {
    const turned = this.rules.route?.(url, req);
    if (turned !== undefined) return { url, turned } as Pass<Turned>;
    if ('refused' in admission) {
      this.access?.refused(this.rpc, admission.refused);
      return { url, refused: { status: keyRefusalStatus(admission.refused), error: this.dialect.unauthorized(admission.refused) } };
    }
    const place = this.rules.place;
    if (place === undefined || this.access === undefined) return { url, caller: admission.caller };
    const release = this.access.takeIpPlace(this.rpc, place.kind, admission.caller.ip);
    if (release !== undefined) return { url, caller: admission.caller, release };
    const { key, max } = this.access.capOf(place.kind);
    return { url, refused: { status: 429, error: place.capReached(key, max) } };
  }
}

/** The Retry-After header's seconds for a wait in milliseconds (at least 1). */
export function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}
