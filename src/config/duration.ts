/** Go-style durations (`time.ParseDuration` / `Duration.String`), resolved to milliseconds. */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

const DURATION = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const TERM = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/**
 * Parses `"10s"`, `"500ms"`, `"1m30s"`, `"1.5h"` or `"0"` into milliseconds; `undefined` when the text
 * is not a duration. Sub-millisecond remainders round up, so a positive duration never becomes 0
 * (which means "none" for several keys).
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0' || trimmed === '+0' || trimmed === '-0') return 0;
  if (!DURATION.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(TERM)) total += Number(amount) * UNIT_MS[unit];
  // toFixed(6) = whole nanoseconds, dropping float noise such as 1.1 * 1000 = 1100.0000000000002.
  const ms = Math.ceil(Number(total.toFixed(6)));
  return trimmed.startsWith('-') ? -ms : ms;
}

/** Formats milliseconds the way Go prints a duration: `"500ms"`, `"10s"`, `"2m0s"`, `"1h0m0s"`. */
export function formatDuration(ms: number): string {
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms === 0) return '0s';
  if (ms < 1_000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1_000;
  return `${hours ? `${hours}h` : ''}${hours || minutes ? `${minutes}m` : ''}${seconds}s`;
}
