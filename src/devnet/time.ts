/** Nanosecond timestamps for the chain model (Go's time.Time as CometBFT uses it). */
import { Timestamp } from './chain/types';

const NANOS_PER_SECOND = 1_000_000_000n;

export function timestampFromNanos(nanos: bigint): Timestamp {
  const seconds = nanos / NANOS_PER_SECOND - (nanos % NANOS_PER_SECOND < 0n ? 1n : 0n);
  return { seconds, nanos: Number(nanos - seconds * NANOS_PER_SECOND) };
}

export function timestampToNanos(ts: Timestamp): bigint {
  return ts.seconds * NANOS_PER_SECOND + BigInt(ts.nanos);
}

/** The wall clock with sub-millisecond digits (performance.now() has microsecond resolution). */
export function now(): Timestamp {
  const micros = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
  return timestampFromNanos(micros * 1000n);
}

export function addMillis(ts: Timestamp, ms: number): Timestamp {
  return timestampFromNanos(timestampToNanos(ts) + BigInt(ms) * 1_000_000n);
}

export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  const d = timestampToNanos(a) - timestampToNanos(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** Go's zero time.Time (0001-01-01T00:00:00Z), which absent commit signatures carry. */
export const ZERO_TIME: Timestamp = { seconds: -62135596800n, nanos: 0 };

/**
 * Parses the RFC 3339 text CometBFT writes (`2024-01-02T03:04:05.123456789Z`, any zone offset);
 * undefined when it is not one.
 */
export function parseTimestamp(text: string): Timestamp | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${m[3].toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  return { seconds: BigInt(ms / 1000), nanos: Number((m[2] ?? '').padEnd(9, '0')) };
}
