import { Logger } from '@nestjs/common';
import type { CallContext, RpcConnection, Transport } from '../../rpc/call-context';
import { batchRuns } from '../../rpc/batch-runs';
import type { Dispatcher } from '../../rpc/dispatcher';
import { InternalError, InvalidRequestError, LimitError, ParseError, RpcError } from '../../rpc/errors';
import { parseBody, NULL_ID, type IncomingMessage } from './messages';
import { errorAnswer, resultAnswer, type Answer } from './responses';

export interface BatchLimits {
  /** Most members of a batch; 0 = unlimited. */
  readonly requests: number;
  /** Bytes of results a batch may return before the rest is refused; 0 = unlimited. */
  readonly responseBytes: number;
}

/** Where a body came from; the dispatcher sees it as the CallContext of each call. */
export interface BodyOrigin {
  readonly transport: Transport;
  readonly remote: string;
  readonly connection?: RpcConnection;
  /** Epoch ms after which unanswered calls get `request timed out`; undefined = none. */
  readonly deadline?: number;
}

const TIMED_OUT = Symbol('timed out');

/**
 * go-ethereum's message handling, shared by the HTTP and WebSocket transports: parse one body,
 * answer a call or a batch in order (notifications run without reply), apply the batch limits and
 * the deadline. Returns the response text, or undefined when nothing is to be written.
 * Unlike go-ethereum, a batch's consecutive reads run concurrently (see batchRuns).
 */
export class JsonRpcMessageHandler {
  private readonly logger = new Logger('EvmRpc');

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly limits: () => BatchLimits,
  ) {}

  async handle(text: string, origin: BodyOrigin): Promise<string | undefined> {
    const body = parseBody(text);
    switch (body.kind) {
      case 'empty':
        return undefined;
      case 'parse-error':
        return errorAnswer(NULL_ID, new ParseError('parse error')).json;
      case 'single': {
        const answer = await this.answerWithin(body.message, origin);
        if (answer === TIMED_OUT) return errorAnswer(rawIdOf(body.message), timedOut()).json;
        return answer?.json;
      }
      case 'batch':
        return this.batch(body.messages, origin);
    }
  }

  private async batch(messages: readonly IncomingMessage[], origin: BodyOrigin): Promise<string | undefined> {
    if (messages.length === 0) return errorAnswer(NULL_ID, new InvalidRequestError('empty batch')).json;
    const limits = this.limits();
    if (limits.requests > 0 && messages.length > limits.requests) {
      const firstCall = messages.find((m) => m.kind === 'call');
      const error = new LimitError('batch-request-limit', 'batch too large');
      return `[${errorAnswer(firstCall ? rawIdOf(firstCall) : NULL_ID, error).json}]`;
    }
    const answers: string[] = [];
    let resultBytes = 0;
    const isRead = (m: IncomingMessage) => (m.kind !== 'call' && m.kind !== 'notification') || this.dispatcher.registry.isRead(m.method);
    for (const [start, end] of batchRuns(messages, isRead)) {
      const run = await Promise.all(messages.slice(start, end).map((m) => this.answerWithin(m, origin)));
      for (let k = 0; k < run.length; k++) {
        const i = start + k;
        const answer = run[k];
        if (answer === TIMED_OUT) {
          answers.push(...refuseRest(messages.slice(i), timedOut()));
          return `[${answers.join(',')}]`;
        }
        if (!answer) continue;
        answers.push(answer.json);
        resultBytes += Buffer.byteLength(answer.resultJson);
        if (limits.responseBytes > 0 && resultBytes > limits.responseBytes) {
          answers.push(...refuseRest(messages.slice(i + 1), new LimitError('batch-response-max-size', 'response too large', -32003)));
          return `[${answers.join(',')}]`;
        }
      }
    }
    return answers.length === 0 ? undefined : `[${answers.join(',')}]`;
  }

  private answerWithin(message: IncomingMessage, origin: BodyOrigin): Promise<Answer | undefined | typeof TIMED_OUT> {
    const answer = this.answer(message, origin);
    if (origin.deadline === undefined) return answer;
    const left = origin.deadline - Date.now();
    if (left <= 0) return Promise.resolve(TIMED_OUT);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, left, TIMED_OUT);
      answer.then(
        (a) => {
          clearTimeout(timer);
          resolve(a);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  private async answer(message: IncomingMessage, origin: BodyOrigin): Promise<Answer | undefined> {
    if (message.kind === 'ignored') return undefined;
    if (message.kind === 'invalid') return errorAnswer(message.rawId, new InvalidRequestError('invalid request'));
    const id = message.kind === 'call' ? message.id : undefined;
    const ctx: CallContext = { transport: origin.transport, remote: origin.remote, requestId: id, connection: origin.connection };
    const outcome = await this.dispatcher.dispatch({ method: message.method, params: message.params, id }, ctx);
    if (message.kind === 'notification') return undefined;
    if (!outcome.ok) return errorAnswer(message.rawId, outcome.error);
    try {
      return resultAnswer(message.rawId, outcome.result);
    } catch (err) {
      this.logger.error(`${message.method}: result not serializable: ${(err as Error).message}`);
      return errorAnswer(message.rawId, new InternalError('method handler crashed'));
    }
  }
}

function rawIdOf(message: IncomingMessage): string {
  return message.kind === 'call' || message.kind === 'invalid' ? message.rawId : NULL_ID;
}

function timedOut(): RpcError {
  return new LimitError('http-timeout', 'request timed out', -32002);
}

/** The answers of the members not run: every one that expects a reply gets the error. */
function refuseRest(messages: readonly IncomingMessage[], error: RpcError): string[] {
  return messages.filter((m) => m.kind === 'call' || m.kind === 'invalid').map((m) => errorAnswer(rawIdOf(m), error).json);
}
