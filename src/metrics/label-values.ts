import type { Query } from '../events/query';
import { LimitError, RefusalError, type NotFoundReason, type RpcError } from '../rpc/errors';

/** The method label of a call whose name is not registered: unknown names are never labels. */
export const OTHER_METHOD = 'other';

export const OK_OUTCOME = 'ok';

/** An error code outside the ranges clients rely on is grouped under this outcome. */
export const OTHER_ERROR_OUTCOME = 'error';

/**
 * The outcome label of a failed call: its JSON-RPC error code when it is one of the bounded set
 * clients act on (the spec's reserved range -32768..-32000, go-ethereum's 3 for a revert), else
 * `error`, so that a backend inventing codes cannot grow the label set.
 */
export function errorOutcome(code: number): string {
  if (Number.isInteger(code) && ((code >= -32768 && code <= -32000) || code === 3)) return String(code);
  return OTHER_ERROR_OUTCOME;
}

/** Refusal reasons of the guards, as label values. */
export type GuardReason = 'unsafe' | 'websocket_only' | 'namespace_disabled';

export const GUARD_REASONS: readonly GuardReason[] = ['unsafe', 'websocket_only', 'namespace_disabled'];

const GUARD_REASON: Record<NotFoundReason, GuardReason | undefined> = {
  unknown: undefined,
  unsafe: 'unsafe',
  'websocket-only': 'websocket_only',
  'namespace-disabled': 'namespace_disabled',
};

/** What a failed call tells about a refusal: a guard's reason, a limit's name, or nothing. */
export function refusalOf(error: RpcError): { reason: GuardReason } | { reason: 'limit'; limit: string } | undefined {
  if (error instanceof RefusalError) {
    const reason = GUARD_REASON[error.reason];
    return reason === undefined ? undefined : { reason };
  }
  if (error instanceof LimitError) return { reason: 'limit', limit: error.limit };
  return undefined;
}

/** The event types CometBFT publishes; a node subscription's kind is one of them, `other` or `all`. */
const NODE_EVENT_TYPES = new Set([
  'NewBlock',
  'NewBlockHeader',
  'NewBlockEvents',
  'NewEvidence',
  'Tx',
  'ValidatorSetUpdates',
  'CompleteProposal',
  'Lock',
  'NewRound',
  'NewRoundStep',
  'Polka',
  'Relock',
  'TimeoutPropose',
  'TimeoutWait',
  'Unlock',
  'ValidBlock',
  'Vote',
]);

/** The kind label of a node subscription: the `tm.event = '…'` of its query, `other`, or `all` without one. */
export function nodeSubscriptionKind(query: Query): string {
  const condition = query.conditionsFor('tm.event').find((c) => c.op === '=');
  if (condition === undefined || condition.op !== '=') return 'all';
  return NODE_EVENT_TYPES.has(condition.arg.value) ? condition.arg.value : 'other';
}
