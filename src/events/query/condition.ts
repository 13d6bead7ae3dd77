import { compareDecimals, leadingDecimal, parseDecimal } from './decimal';
import { parseGoDate, parseGoRFC3339 } from './go-time';

export type OrderOperator = '<' | '<=' | '>' | '>=';
export type Operator = '=' | OrderOperator | 'CONTAINS' | 'EXISTS';

export interface StringArgument {
  readonly kind: 'string';
  readonly value: string;
}
/** `value` is the number as written, e.g. "5" or "1.50". */
export interface NumberArgument {
  readonly kind: 'number';
  readonly value: string;
}
/** `value` is yyyy-mm-dd. */
export interface DateArgument {
  readonly kind: 'date';
  readonly value: string;
}
/** `value` is the RFC 3339 timestamp as written. */
export interface TimeArgument {
  readonly kind: 'time';
  readonly value: string;
}
export type OrderedArgument = NumberArgument | DateArgument | TimeArgument;
export type Argument = StringArgument | OrderedArgument;

/** One `tag op [arg]` of a query; the union encodes which arguments each operator takes. */
export type Condition =
  | { readonly tag: string; readonly op: 'EXISTS' }
  | { readonly tag: string; readonly op: 'CONTAINS'; readonly arg: StringArgument }
  | { readonly tag: string; readonly op: '='; readonly arg: Argument }
  | { readonly tag: string; readonly op: OrderOperator; readonly arg: OrderedArgument };

/**
 * The normalized text of a condition, e.g. `tm.event = 'NewBlock'` or `block.time >= TIME 2013-05-03T14:45:00Z`.
 * It must parse back to the same condition (it is what an upstream is subscribed with): a tag `TIME` or
 * `DATE` followed by a space would read as a stamp, so a tab follows those.
 */
export function formatCondition(condition: Condition): string {
  const head = `${condition.tag}${condition.tag === 'TIME' || condition.tag === 'DATE' ? '\t' : ' '}${condition.op}`;
  if (condition.op === 'EXISTS') return head;
  const { kind, value } = condition.arg;
  switch (kind) {
    case 'string':
      return `${head} '${value}'`;
    case 'number':
      return `${head} ${value}`;
    case 'date':
      return `${head} DATE ${value}`;
    case 'time':
      return `${head} TIME ${value}`;
  }
}

type ValueMatcher = (value: string) => boolean;

const matchers = new WeakMap<Condition, ValueMatcher>();

/**
 * Whether one attribute value satisfies the condition, with CometBFT's rules: numbers compare by value
 * and accept a leading numeric prefix ("8atom" is 8), DATE and TIME compare the value parsed as such,
 * CONTAINS is a substring test and EXISTS accepts anything.
 */
export function conditionMatchesValue(condition: Condition, value: string): boolean {
  let matcher = matchers.get(condition);
  if (matcher === undefined) {
    matcher = compile(condition);
    matchers.set(condition, matcher);
  }
  return matcher(value);
}

const ORDER_TESTS: Readonly<Record<'=' | OrderOperator, (comparison: number) => boolean>> = {
  '=': (c) => c === 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

function compile(condition: Condition): ValueMatcher {
  if (condition.op === 'EXISTS') return () => true;
  const { arg } = condition;
  if (condition.op === 'CONTAINS') return (value) => value.includes(arg.value);
  if (arg.kind === 'string') return (value) => value === arg.value;

  const accepts = ORDER_TESTS[condition.op];
  if (arg.kind === 'number') {
    const target = parseDecimal(arg.value);
    if (target === undefined) throw new Error(`invalid number argument ${arg.value}`);
    return (value) => {
      const number = leadingDecimal(value);
      return number !== undefined && accepts(compareDecimals(number, target));
    };
  }

  const parse = arg.kind === 'date' ? parseGoDate : parseGoRFC3339;
  const target = parse(arg.value);
  if (!target.ok) throw new Error(`invalid ${arg.kind} argument ${arg.value}`);
  return (value) => {
    const time = parse(value);
    return time.ok && accepts(time.epochNanos < target.epochNanos ? -1 : time.epochNanos > target.epochNanos ? 1 : 0);
  };
}
