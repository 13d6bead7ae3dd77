/**
 * Range conditions as CometBFT's kv indexers evaluate them (state/indexer/query_range.go and
 * internal/indexer): the conditions on one tag form one range, only number bounds ever match, and an
 * indexed value counts only when the whole value is a number (unlike pubsub, "8atom" is not 8).
 */
import type { OrderedArgument, OrderOperator } from '../../events/query';

export interface RangeBounds {
  lower?: OrderedArgument;
  includeLower: boolean;
  upper?: OrderedArgument;
  includeUpper: boolean;
}

/** An exact rational num / den (den > 0), or an infinity. */
export type Rational = { num: bigint; den: bigint } | 'inf' | '-inf';

export function extendBounds(bounds: RangeBounds, op: OrderOperator, arg: OrderedArgument): RangeBounds {
  switch (op) {
    case '>':
      return { ...bounds, lower: arg };
    case '>=':
      return { ...bounds, lower: arg, includeLower: true };
    case '<':
      return { ...bounds, upper: arg };
    case '<=':
      return { ...bounds, upper: arg, includeUpper: true };
  }
}

export function withinBounds(bounds: RangeBounds, value: string | bigint): boolean {
  const v = typeof value === 'bigint' ? { num: value, den: 1n } : parseGoNumber(value);
  if (v === undefined) return false;
  const check = (arg: OrderedArgument | undefined, inclusive: boolean, sign: 1 | -1): boolean => {
    if (arg === undefined) return true;
    const bound = arg.kind === 'number' ? parseGoNumber(arg.value) : undefined;
    if (bound === undefined) return false;
    const c = compare(v, bound) * sign;
    return c > 0 || (c === 0 && inclusive);
  };
  return check(bounds.lower, bounds.includeLower, 1) && check(bounds.upper, bounds.includeUpper, -1);
}

/** big.Int SetString(v, 10), else big.ParseFloat(v, 10, …): sign, digits, fraction, exponent, Inf. */
export function parseGoNumber(text: string): Rational | undefined {
  const inf = /^([+-]?)inf$/i.exec(text);
  if (inf) return inf[1] === '-' ? '-inf' : 'inf';
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const fraction = m[3] ?? '';
  const exponent = BigInt(m[4] ?? '0') - BigInt(fraction.length);
  let num = BigInt(`${m[2]}${fraction}` || '0') * (m[1] === '-' ? -1n : 1n);
  let den = 1n;
  if (exponent >= 0n) num *= 10n ** exponent;
  else den = 10n ** -exponent;
  return { num, den };
}

function compare(a: Rational, b: Rational): number {
  const rank = (r: Rational): number => (r === 'inf' ? 1 : r === '-inf' ? -1 : 0);
  if (rank(a) !== 0 || rank(b) !== 0) return Math.sign(rank(a) - rank(b));
  const x = a as { num: bigint; den: bigint };
  const y = b as { num: bigint; den: bigint };
  const d = x.num * y.den - y.num * x.den;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}
