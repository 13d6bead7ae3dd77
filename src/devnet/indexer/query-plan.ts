/**
 * How CometBFT's kv indexers read a query (dedupHeight, LookForRangesWithHeight): conditions on the
 * height tag become a filter (the first `=` with a number, or a range, which then wins), range
 * conditions on any other tag merge into one range per tag, and every remaining condition must hold
 * within one and the same event.
 */
import type { Condition, OrderOperator, Query } from '../../events/query';
import { extendBounds, parseGoNumber, RangeBounds } from './numeric-bounds';

export interface HeightFilter {
  eq?: bigint;
  range?: RangeBounds;
}

type RangeCondition = Extract<Condition, { op: OrderOperator }>;

export type AttributeMatcher =
  | { tag: string; kind: 'condition'; condition: Exclude<Condition, RangeCondition> }
  | { tag: string; kind: 'range'; bounds: RangeBounds };

export interface QueryPlan {
  heights: HeightFilter;
  matchers: AttributeMatcher[];
}

const NO_BOUNDS: RangeBounds = { includeLower: false, includeUpper: false };

export function planQuery(query: Query, heightTag: string): QueryPlan {
  let heightEq: bigint | undefined;
  let heightRange: RangeBounds | undefined;
  const ranges = new Map<string, RangeBounds>();
  const matchers: AttributeMatcher[] = [];
  for (const c of query.conditions) {
    if (isRange(c)) {
      if (c.tag === heightTag) heightRange = extendBounds(heightRange ?? NO_BOUNDS, c.op, c.arg);
      else ranges.set(c.tag, extendBounds(ranges.get(c.tag) ?? NO_BOUNDS, c.op, c.arg));
    } else if (c.tag !== heightTag) {
      matchers.push({ tag: c.tag, kind: 'condition', condition: c });
    } else if (c.op === '=' && heightEq === undefined) {
      heightEq = heightOf(c.arg.value);
    }
    // Any other condition on the height tag is dropped, as CometBFT does.
  }
  for (const [tag, bounds] of ranges) matchers.push({ tag, kind: 'range', bounds });
  return { heights: heightRange !== undefined ? { range: heightRange } : { eq: heightEq }, matchers };
}

function isRange(c: Condition): c is RangeCondition {
  return c.op === '<' || c.op === '<=' || c.op === '>' || c.op === '>=';
}

/** Arg.Number().Int64(): any argument that reads as a number, truncated toward zero. */
function heightOf(text: string): bigint | undefined {
  const n = parseGoNumber(text);
  if (n === undefined) return undefined;
  if (typeof n === 'string') return n === 'inf' ? (1n << 63n) - 1n : -(1n << 63n);
  return n.num / n.den;
}
