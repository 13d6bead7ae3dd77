/**
 * What counts as a defect of a parser, codec or engine, shared by the property tests (test/unit/fuzz) and
 * the coverage-guided targets (test/fuzz/targets): each check throws a plain Error on a defect and
 * returns quietly otherwise, so a fast-check property and a jazzer target fail on the same inputs.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Body, Message } from '../../src/rpc/envelope';
import { RpcError } from '../../src/rpc/errors';
import type { Codec } from '../../src/rpc/codec';

/** One input must be handled in this long; a longer run is a hang (or a quadratic blow-up). */
export const PER_RUN_MS = 1000;

interface TimedRun<T> {
  /** What `fn` gave: its value, or its error thrown again. */
  readonly outcome: () => T;
  readonly took: number;
}

/** The outcome of a run that gave `value`. */
function replay<T>(value: T): () => T {
  return () => value;
}

/** The outcome of a run that threw `err`. */
function rethrow(err: unknown): () => never {
  return () => {
    throw err;
  };
}

function timedRun<T>(fn: () => T): TimedRun<T> {
  const start = performance.now();
  let outcome: () => T;
  try {
    outcome = replay(fn());
  } catch (err) {
    outcome = rethrow(err);
  }
  return { outcome, took: performance.now() - start };
}

async function timedRunAsync<T>(fn: () => Promise<T>): Promise<TimedRun<T>> {
  const start = performance.now();
  const outcome = await fn().then(replay, rethrow);
  return { outcome, took: performance.now() - start };
}

/** The outcome of the run kept: the second one when the first was slow; failing when it was slow too. */
function judged<T>(run: TimedRun<T>): T {
  if (run.took > PER_RUN_MS) throw new Error(`took ${run.took.toFixed(0)} ms, twice`);
  return run.outcome();
}

/**
 * Runs `fn`, failing when it took longer than PER_RUN_MS twice in a row: a hang or a blow-up is slow
 * every time, a shared machine that paused the process for a moment is not (a slow run is run again).
 */
export function timed<T>(fn: () => T): T {
  const first = timedRun(fn);
  return judged(first.took > PER_RUN_MS ? timedRun(fn) : first);
}

/** Async form of `timed`. */
export async function timedAsync<T>(fn: () => Promise<T>): Promise<T> {
  const first = await timedRunAsync(fn);
  return judged(first.took > PER_RUN_MS ? await timedRunAsync(fn) : first);
}

/** Calls `fn`; returns what it threw (undefined when it returned), failing on anything but `typed`. */
export function failureOf(fn: () => unknown, ...typed: (abstract new (...args: never[]) => Error)[]): Error | undefined {
  try {
    timed(fn);
    return undefined;
  } catch (err) {
    if (typed.some((t) => err instanceof t)) return err as Error;
    throw err;
  }
}

function checkMessage(message: Message): void {
  if (message.kind === 'invalid' && !(message.error instanceof RpcError)) throw new Error(`untyped failure of a member: ${String(message.error)}`);
  if (message.kind === 'call' || message.kind === 'invalid') JSON.parse(message.idText);
}

/** A parsed body (a dialect's `parse`): every failure an RpcError, every id to answer with JSON text. */
export function checkBody(body: Body): void {
  if (body.kind === 'error' && !(body.error instanceof RpcError)) throw new Error(`untyped failure of the body: ${String(body.error)}`);
  if (body.kind === 'single') checkMessage(body.message);
  if (body.kind === 'batch') body.messages.forEach(checkMessage);
}

const ANSWER_KEYS = new Set(['jsonrpc', 'id', 'result', 'error']);

function checkResponse(response: unknown): void {
  if (typeof response !== 'object' || response === null || Array.isArray(response)) throw new Error('an answer that is not an object');
  const r = response as Record<string, unknown>;
  const extra = Object.keys(r).filter((k) => !ANSWER_KEYS.has(k));
  if (extra.length > 0) throw new Error(`an answer with ${extra.join(', ')}`);
  if (r.jsonrpc !== '2.0') throw new Error('an answer without jsonrpc 2.0');
  if (('result' in r) === ('error' in r)) throw new Error('an answer needs exactly one of result and error');
  if ('error' in r) {
    const e = r.error as Record<string, unknown> | null;
    if (typeof e !== 'object' || e === null || !Number.isInteger(e.code) || typeof e.message !== 'string') throw new Error('an error without an integer code and a message');
  }
}

/** An engine's reply body: a JSON-RPC response, or a non-empty batch of them. */
export function checkAnswer(text: string): void {
  const answer: unknown = JSON.parse(text);
  if (!Array.isArray(answer)) return checkResponse(answer);
  if (answer.length === 0) throw new Error('an empty batch answer');
  answer.forEach(checkResponse);
}

/** What a codec decoded, written back by its `encode` (a call forwarded upstream), decodes the same. */
export function checkRoundTrip<T>(codec: Codec<T>, decoded: T): void {
  const wire = timed(() => codec.encode!(decoded));
  JSON.stringify(wire); // throws on what JSON cannot carry (a bigint)
  const again = codec.decode(wire);
  if (!isDeepStrictEqual(again, decoded)) throw new Error(`decoded ${show(decoded)}, encoded ${JSON.stringify(wire)}, decoded again ${show(again)}`);
}

function show(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? `bytes:${Buffer.from(v).toString('hex')}` : v));
}
