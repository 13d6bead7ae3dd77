import type { CallContext, Caller, JsonText, NotificationPort, RpcConnection, Transport } from './call-context';
import { batchAnswer, type AnswerPieces } from './answer-pieces';
import { batchRuns } from './batch-runs';
import type { BatchLimits, Dialect, RpcRequest } from './dialect';
import { answeredIdOf, errorAnswer, resultAnswer, resultAnswerBytes, resultAnswerPieces, type Message } from './envelope';
import { errorOf, refuseRest, type Answer } from './member-answers';
import { RateLimitedError, type RpcError } from './errors';
import { checkGuards, unknownMethod, type GuardPolicy } from './guards';
import { isImmutableAnswer, type AnyMethod, type MethodArgs } from './method';
import type { MethodRegistry } from './method-registry';
import { resultJson, unreadBytes, UnreadJson } from './result-json';
import { traceBatch, traceCall } from '../tracing/call-spans';
import { tracingOn } from '../tracing/spans';
import { isPromiseLike, withinDeadline, type CallExpiry } from './within-deadline';

export type Outcome =
  | { readonly ok: true; readonly result: unknown; readonly method: AnyMethod; readonly args: MethodArgs }
  | { readonly ok: false; readonly error: RpcError; readonly method?: AnyMethod };

/** Sees every dispatched call (metrics, the request log). */
export interface CallObserver {
  onCall(request: RpcRequest, ctx: CallContext, outcome: Outcome, startedAt: bigint): void;
}

/** What the engine counts besides calls; the metrics service supplies it (no-ops when off). */
export interface EngineMeters {
  received(transport: Transport, bytes: number): void;
  /** An answer written, of `bytes` bytes. */
  answered(transport: Transport, bytes: number): void;
  batch(size: number): void;
  /** A limit refused a request (the limit's config key). */
  refused(limit: string): void;
  /** A body failed before any call was dispatched (unparsable JSON). */
  rejected(transport: Transport, code: number): void;
}

/**
 * Admits a call before anything else runs (the rate limits): undefined, or a promise, when it may go
 * on; throws (or rejects with) a RateLimitedError when it may not. Runs for every call: single calls,
 * batch members, WebSocket messages, unknown methods alike.
 */
export type CallGate = (request: RpcRequest, ctx: CallContext) => Promise<void> | undefined;

/** Runs a call once guards and params have passed (the backend's Invoker; a bare engine runs handlers). */
export type Executor = (method: AnyMethod, args: MethodArgs, request: RpcRequest, ctx: CallContext) => unknown;

/** Where a body came from. */
export interface Origin {
  readonly transport: Transport;
  readonly remote: string;
  /** Who is calling (client IP, API key), as the transport established it. */
  readonly caller?: Caller;
  /** The bytes of the body as received (counted by metrics). */
  readonly bytes: number;
  readonly connection?: RpcConnection;
  readonly correlationId?: string;
  /** The HTTP request's headers, whence the client's trace context is read (W3C `traceparent`). */
  readonly traceHeaders?: CallContext['traceHeaders'];
  /** Epoch ms after which unanswered calls get the timeout error; undefined = the interface's call timeout from now. */
  readonly deadline?: number;
  /**
   * The transport takes an answer in pieces (HTTP writes them; a WebSocket joins them into one frame): a
   * call (alone or in a batch) whose result is an upstream's large answer passed on unread is then
   * answered in its bytes as they were read, never decoded.
   */
  readonly pieces?: true;
}

export interface Reply<Body = string> {
  /**
   * The answer; undefined when nothing is to be written (notifications only). In pieces only where the
   * origin takes them (Origin.pieces) and the result is an upstream's large answer passed on unread.
   */
  readonly body: Body | undefined;
  /** The body's size in bytes (0 without one), from its members' sizes: counted once for the metrics and the transport. */
  readonly bytes: number;
  /** The body failed as a whole (unparsable): transports that give it its own HTTP status read this. */
  readonly failed: boolean;
  /** The body was refused whole at a limit (a batch over its size limit); nothing ran. */
  readonly refused?: boolean;
  /** Every answered call succeeded with an answer that never changes (HTTP caches may keep it). */
  readonly immutable: boolean;
  /**
   * Every answered call was refused at a rate limit: the longest wait before a budget has room again
   * (HTTP transports answer 429 with Retry-After).
   */
  readonly retryAfterMs?: number;
}

const NO_METERS: EngineMeters = { received() {}, answered() {}, batch() {}, refused() {}, rejected() {} };
const TIMED_OUT = Symbol('timed out');
/** What became of one message: its answer, none (a notification), or its deadline passed first. */
type Answered = Answer<string | AnswerPieces> | undefined | typeof TIMED_OUT;

/**
 * The one JSON-RPC engine: envelope → batch loop → registry lookup → guards (from metadata) → param
 * codecs → handler → answer. Every transport of an interface calls it; what differs between the node
 * RPC and the EVM RPC is the dialect it is built with.
 */
export class RpcEngine {
  private readonly observers: CallObserver[] = [];
  private meters: EngineMeters = NO_METERS;
  private executor: Executor = (method, args, _request, ctx) => method.handler?.(args as never, ctx);
  private gate: CallGate | undefined;
  private pending = 0;

  constructor(
    readonly dialect: Dialect,
    readonly registry: MethodRegistry,
    private readonly policy: GuardPolicy,
    private readonly limits: () => BatchLimits,
  ) {}

  addObserver(observer: CallObserver): void {
    this.observers.push(observer);
  }

  useMeters(meters: EngineMeters): void {
    this.meters = meters;
  }

  /** How a call runs once admitted: the backend's Invoker (prepare hook, handler or backend). */
  useExecutor(executor: Executor): void {
    this.executor = executor;
  }

  /** Admits every call first (rate limits); without one, every call is admitted. */
  useGate(gate: CallGate): void {
    this.gate = gate;
  }

  /** Calls being dispatched right now (the in-flight gauge; what a graceful shutdown drains). */
  get inFlight(): number {
    return this.pending;
  }

  /** Whether a method is served under the current configuration (its group enabled; unsafe ones only when allowed). */
  isServed(method: AnyMethod): boolean {
    return (!method.unsafe || this.policy.unsafeEnabled()) && this.policy.groupEnabled(method.group);
  }

  /** Whether a method name is registered (transports that route by name: node RPC URI paths). */
  has(method: string): boolean {
    return this.registry.has(method);
  }

  /**
   * One call: gate, registry lookup, guards, param decoding, validation, execution; never fails. Its
   * outcome comes as a value when every step answered at once (a cache hit, a computed answer), so
   * that such a call costs no promise chain.
   */
  call(request: RpcRequest, ctx: CallContext): Outcome | Promise<Outcome> {
    return tracingOn() ? traceCall(this.dialect.name, ctx, () => this.dispatch(request, ctx)) : this.dispatch(request, ctx);
  }

  private dispatch(request: RpcRequest, ctx: CallContext): Outcome | Promise<Outcome> {
    const startedAt = process.hrtime.bigint();
    const method = this.registry.get(request.method);
    this.pending++;
    let admitted: Promise<void> | undefined;
    try {
      admitted = this.gate?.(request, ctx);
    } catch (err) {
      return this.failed(err, method, request, ctx, startedAt);
    }
    if (admitted === undefined) return this.execute(method, request, ctx, startedAt);
    return admitted.then(
      () => this.execute(method, request, ctx, startedAt),
      (err: unknown) => this.failed(err, method, request, ctx, startedAt),
    );
  }

  private execute(method: AnyMethod | undefined, request: RpcRequest, ctx: CallContext, startedAt: bigint): Outcome | Promise<Outcome> {
    let args: MethodArgs;
    let result: unknown;
    try {
      if (method === undefined) throw unknownMethod(this.policy, request.method, ctx);
      checkGuards(this.policy, method, ctx);
      args = this.dialect.decodeParams(method, request.params, ctx.transport);
      result = this.executor(method, args, request, ctx);
    } catch (err) {
      return this.failed(err, method, request, ctx, startedAt);
    }
    if (!isPromiseLike(result)) return this.done({ ok: true, result, method, args }, request, ctx, startedAt);
    return Promise.resolve(result).then(
      (value: unknown) => this.done({ ok: true, result: value, method, args }, request, ctx, startedAt),
      (err: unknown) => this.failed(err, method, request, ctx, startedAt),
    );
  }

  private failed(err: unknown, method: AnyMethod | undefined, request: RpcRequest, ctx: CallContext, startedAt: bigint): Outcome {
    const error = err instanceof RateLimitedError ? this.dialect.rateLimited(err.limit, err.retryAfterMs) : this.dialect.toRpcError(err, request, ctx);
    return this.done({ ok: false, error, method }, request, ctx, startedAt);
  }

  private done(outcome: Outcome, request: RpcRequest, ctx: CallContext, startedAt: bigint): Outcome {
    this.pending--;
    for (const observer of this.observers) observer.onCall(request, ctx, outcome, startedAt);
    return outcome;
  }

  /**
   * The answer text of an outcome under `idText` (a result that cannot be serialised is an internal
   * error). `asBytes`: an upstream's large result passed on unread is answered in bytes, never decoded.
   */
  answer(idText: string | undefined, outcome: Outcome, request: RpcRequest, ctx: CallContext): Answer;
  answer(idText: string | undefined, outcome: Outcome, request: RpcRequest, ctx: CallContext, asBytes: boolean): Answer<string | AnswerPieces>;
  answer(idText: string | undefined, outcome: Outcome, request: RpcRequest, ctx: CallContext, asBytes = false): Answer<string | AnswerPieces> {
    if (!outcome.ok) return errorOf(idText, outcome.error, outcome.error instanceof RateLimitedError ? outcome.error.retryAfterMs : undefined);
    const result = outcome.result;
    const pieces = asBytes ? unreadBytes(result) : undefined;
    if (pieces !== undefined) {
      const size = (result as UnreadJson).size;
      return { text: resultAnswerPieces(idText, pieces), bytes: resultAnswerBytes(idText, size), resultBytes: size, immutable: isImmutableAnswer(outcome.method, outcome.args, result) };
    }
    let json: string;
    try {
      json = resultJson(result ?? null);
    } catch (err) {
      return errorOf(idText, this.dialect.toRpcError(new Error(`result not serializable: ${(err as Error).message}`), request, ctx));
    }
    // An unread result knows its size on the wire (a cached one measured once), so an answer is not scanned.
    const jsonBytes = result instanceof UnreadJson ? result.wireBytes : Buffer.byteLength(json);
    return { text: resultAnswer(idText, json), bytes: resultAnswerBytes(idText, jsonBytes), resultBytes: json.length, immutable: isImmutableAnswer(outcome.method, outcome.args, result) };
  }

  /**
   * One call under the interface's call timeout, for a transport that dispatches calls itself (node RPC
   * URI calls): still running then, it gets the timeout error and its context's signal fires.
   */
  callWithin(request: RpcRequest, ctx: CallContext): Outcome | Promise<Outcome> {
    const deadline = this.deadlineFromNow();
    if (deadline === undefined) return this.call(request, ctx);
    return withinDeadline<Outcome>(deadline, (signal, expiry) => this.call(request, { ...ctx, signal, expiry }), () => ({ ok: false, error: this.dialect.timedOut() }));
  }

  private deadlineFromNow(): number | undefined {
    const timeout = this.limits().timeout;
    return timeout !== undefined && timeout.max > 0 ? Date.now() + timeout.max : undefined;
  }

  /** Counts a request and its answer (`bytes` each) for a transport that frames them itself (node RPC URI calls). */
  countRequest(transport: Transport, bytes: number): void {
    this.meters.received(transport, bytes);
  }

  countAnswer(transport: Transport, bytes: number): void {
    this.meters.answered(transport, bytes);
  }

  /** One request body: a single message or a batch. */
  handle(text: string, origin: Origin & { readonly pieces: true }): Promise<Reply<string | AnswerPieces>>;
  handle(text: string, origin: Origin): Promise<Reply>;
  async handle(text: string, origin: Origin): Promise<Reply<string | AnswerPieces>> {
    this.meters.received(origin.transport, origin.bytes);
    const body = this.dialect.parse(text, origin.transport);
    const deadline = origin.deadline ?? this.deadlineFromNow();
    let reply: Reply<string | AnswerPieces>;
    switch (body.kind) {
      case 'empty':
        return { body: undefined, bytes: 0, failed: false, immutable: false };
      case 'error': {
        this.meters.rejected(origin.transport, body.error.code);
        const error = errorAnswer(this.dialect.bodyErrorId, body.error);
        reply = { body: error, bytes: Buffer.byteLength(error), failed: true, immutable: false };
        break;
      }
      case 'single': {
        const within = this.answerWithin(body.message, origin, deadline, origin.pieces === true);
        const answer = isPromiseLike(within) ? await within : within;
        const answered = answer === TIMED_OUT ? errorOf(answeredIdOf(body.message), this.dialect.timedOut()) : answer;
        reply = { body: answered?.text, bytes: answered?.bytes ?? 0, failed: false, immutable: answered?.immutable === true, retryAfterMs: answered?.retryAfterMs };
        break;
      }
      case 'batch':
        reply = await (tracingOn() ? traceBatch(this.dialect.name, origin, body.messages.length, () => this.batch(body.messages, origin, deadline)) : this.batch(body.messages, origin, deadline));
        break;
    }
    if (reply.body !== undefined) this.meters.answered(origin.transport, reply.bytes);
    return reply;
  }

  private async batch(messages: readonly Message[], origin: Origin, deadline: number | undefined): Promise<Reply<string | AnswerPieces>> {
    if (messages.length === 0) {
      const empty = this.dialect.emptyBatch();
      return { body: empty, bytes: empty === undefined ? 0 : Buffer.byteLength(empty), failed: false, immutable: false };
    }
    const limits = this.limits();
    if (limits.requests.max > 0 && messages.length > limits.requests.max) {
      this.meters.refused(limits.requests.key);
      const refusal = this.dialect.batchTooLarge(limits.requests, messages);
      return { body: refusal, bytes: Buffer.byteLength(refusal), failed: false, refused: true, immutable: false };
    }
    this.meters.batch(messages.length);
    const answers: Answer<string | AnswerPieces>[] = [];
    let immutable = true;
    let resultBytes = 0;
    // The longest wait of members refused at a rate limit, while every answered member was.
    let retryAfterMs: number | undefined = 0;
    const isRead = (m: Message) => (m.kind !== 'call' && m.kind !== 'notification') || this.registry.isRead(m.method);
    const done = (): Reply<string | AnswerPieces> => {
      const whole = answers.length === 1 && this.dialect.unwrapSingleAnswer ? answers[0] : undefined;
      // batchAnswer's array: the members, a comma between each two, the brackets.
      let bytes = answers.length + 1;
      for (const answer of answers) bytes += answer.bytes;
      return {
        body: answers.length === 0 ? undefined : (whole?.text ?? batchAnswer(answers.map((answer) => answer.text))),
        bytes: answers.length === 0 ? 0 : (whole?.bytes ?? bytes),
        failed: false,
        immutable: immutable && answers.length > 0,
        retryAfterMs: answers.length > 0 ? retryAfterMs : undefined,
      };
    };
    for (const [start, end] of batchRuns(messages, isRead)) {
      const run = await Promise.all(messages.slice(start, end).map((m) => this.answerWithin(m, origin, deadline, origin.pieces === true)));
      for (let k = 0; k < run.length; k++) {
        const i = start + k;
        const answer = run[k];
        if (answer === TIMED_OUT) {
          answers.push(...refuseRest(messages.slice(i), this.dialect.timedOut()));
          immutable = false;
          retryAfterMs = undefined;
          return done();
        }
        if (answer === undefined) continue;
        answers.push(answer);
        retryAfterMs = answer.retryAfterMs === undefined || retryAfterMs === undefined ? undefined : Math.max(retryAfterMs, answer.retryAfterMs);
        immutable &&= answer.immutable;
        resultBytes += answer.resultBytes;
        const cap = limits.responseBytes;
        if (cap.max > 0 && resultBytes > cap.max) {
          this.meters.refused(cap.key);
          answers.push(...refuseRest(messages.slice(i + 1), this.dialect.responseTooLarge(cap)));
          immutable = false;
          retryAfterMs = undefined;
          return done();
        }
      }
    }
    return done();
  }

  /** A message's answer (`asBytes`: see answer()), or TIMED_OUT at `deadline` (epoch ms), when its context's signal fires. */
  private answerWithin(message: Message, origin: Origin, deadline: number | undefined, asBytes: boolean): Answered | Promise<Answered> {
    if (deadline === undefined) return this.answerMessage(message, origin, undefined, undefined, asBytes);
    return withinDeadline<Answered>(deadline, (signal, expiry) => this.answerMessage(message, origin, signal, expiry, asBytes), () => TIMED_OUT);
  }

  private answerMessage(message: Message, origin: Origin, signal: AbortSignal | undefined, expiry: CallExpiry | undefined, asBytes: boolean): Exclude<Answered, typeof TIMED_OUT> | Promise<Exclude<Answered, typeof TIMED_OUT>> {
    switch (message.kind) {
      case 'ignored':
        return undefined;
      case 'invalid':
        return errorOf(message.idText, message.error);
      case 'notification': {
        const request = { method: message.method, params: message.params, id: undefined };
        const outcome = this.call(request, this.contextOf(origin, undefined, undefined, signal, expiry));
        return isPromiseLike(outcome) ? outcome.then(() => undefined) : undefined;
      }
      case 'call': {
        const request = { method: message.method, params: message.params, id: message.id };
        const ctx = this.contextOf(origin, message.id, message.idText, signal, expiry);
        const outcome = this.call(request, ctx);
        return isPromiseLike(outcome) ? outcome.then((o) => this.answer(message.idText, o, request, ctx, asBytes)) : this.answer(message.idText, outcome, request, ctx, asBytes);
      }
    }
  }

  private contextOf(origin: Origin, requestId: unknown, idText: string | undefined, signal: AbortSignal | undefined, expiry: CallExpiry | undefined): CallContext {
    const connection = origin.connection;
    return {
      transport: origin.transport,
      remote: origin.remote,
      caller: origin.caller,
      requestId,
      correlationId: origin.correlationId,
      traceHeaders: origin.traceHeaders,
      notifications: connection && idText !== undefined ? this.port(connection, idText) : undefined,
      signal,
      expiry,
    };
  }

  /** The notification port of a WebSocket call: frames come from the dialect, under the call's id. */
  private port(connection: RpcConnection, idText: string): NotificationPort {
    const dialect = this.dialect;
    return {
      subscriber: connection.id,
      onClose: (listener) => connection.onClose(listener),
      stream: (subscription) => ({
        send: (result: JsonText, timeoutMs?: number) => connection.send(dialect.notification(idText, subscription, result), timeoutMs),
        fail: (error: RpcError) => void connection.send(dialect.notificationError(idText, subscription, error)),
      }),
    };
  }
}
