import { conditionMatchesValue, formatCondition, type Condition } from './condition';

/** Composite key ("<event type>.<attribute key>") → attribute values. */
export type EventMap = Readonly<Record<string, readonly string[]>>;

/** A parsed query: conditions that must all hold. */
export class Query {
  private readonly normalized: string;

  constructor(readonly conditions: readonly Condition[]) {
    this.normalized = conditions.map(formatCondition).join(' AND ');
  }

  /** The normalized form, which tells subscriptions apart. */
  toString(): string {
    return this.normalized;
  }

  conditionsFor(tag: string): Condition[] {
    return this.conditions.filter((condition) => condition.tag === tag);
  }

  /**
   * Pubsub matching: every condition must match some value under its key; conditions are
   * independent of one another. An empty map matches nothing.
   */
  matches(events: EventMap): boolean {
    return this.conditions.every((condition) => conditionMatchesEvents(condition, events));
  }
}

/**
 * CometBFT splits each key at its last dot into event type and attribute. A condition matches a
 * value of the key equal to its tag, and, when its tag equals an event type, it is tried against ""
 * (which lets `transfer EXISTS` match a `transfer.amount` key). A key without a dot matches nothing.
 */
function conditionMatchesEvents(condition: Condition, events: EventMap): boolean {
  const { tag } = condition;
  const values = tag.includes('.') && Object.hasOwn(events, tag) ? events[tag] : undefined;
  if (values?.some((value) => conditionMatchesValue(condition, value))) return true;
  if (!conditionMatchesValue(condition, '')) return false;
  return Object.keys(events).some((key) => key.lastIndexOf('.') === tag.length && key.startsWith(tag));
}
