/**
 * Several calls to one upstream sent as one JSON-RPC batch (see JsonRpcClient's batching): undici's
 * dispatch handler of the batch request, which hands each call its own member of the answer, matched
 * by id. A node that answers the batch with anything but an array (a "batch too large" error, an HTTP
 * 4xx) does not take batches: `refused` is told, and sends the calls again one by one.
 */
import type { Dispatcher } from 'undici';
import { arrayElements, memberText, skipWhitespace } from '../../rpc/json-scan';
import { failureOf, joinText, type Exchange } from './exchange';
import { UpstreamFailure } from './upstream-errors';

export class BatchExchange implements Dispatcher.DispatchHandler {
  private status = 0;
  private readonly chunks: Buffer[] = [];

  constructor(
    private readonly calls: readonly Exchange[],
    private readonly refused: (reason: string) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Every call timed out or was aborted while the batch waited for a connection.
    if (this.calls.every((call) => call.done)) controller.abort(new UpstreamFailure('aborted', 'aborted'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const text = joinText(this.chunks);
    const status = this.status;
    let answers: unknown;
    try {
      answers = JSON.parse(text);
    } catch {
      return this.failAll(new UpstreamFailure(`HTTP ${status}: not JSON`, status === 200 ? 'body' : 'http'));
    }
    if (!Array.isArray(answers)) {
      if (status >= 500) return this.failAll(new UpstreamFailure(`HTTP ${status}: no result`, 'http'));
      return this.refused(`HTTP ${status}: ${text.slice(0, 200).trim()}`);
    }
    const elements = arrayElements(text.slice(skipWhitespace(text, 0)));
    const byId = new Map(this.calls.map((call) => [call.id, call]));
    answers.forEach((answer: { id?: unknown; result?: unknown } | null, i) => {
      const call = typeof answer?.id === 'number' ? byId.get(answer.id) : undefined;
      if (call === undefined) return;
      // Only an object's wire text is kept (result-json.ts attachRawJson); a scalar result is written out anew.
      const raw = typeof answer?.result === 'object' && answer.result !== null ? memberText(elements[i], 'result') : undefined;
      call.settle(answer, status, elements[i].length, raw);
    });
    if (this.calls.some((call) => !call.done)) this.failAll(new UpstreamFailure('the batch answer holds no answer to this call', 'body'));
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error & { code?: string }): void {
    this.failAll(failureOf(err, this.status !== 0));
  }

  /** Fails every call not settled yet. */
  private failAll(error: UpstreamFailure): void {
    for (const call of this.calls) call.fail(error);
  }
}
