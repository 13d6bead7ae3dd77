import type { AccessService } from '../../access/access.service';
import type { LogFilter, RpcLog } from '../evm-types';
import { ApplicationError } from '../../rpc/errors';
import type { Json } from '../../rpc/json';

export type FilterKind = 'logs' | 'blocks' | 'pendingTransactions';

export const CAP_ERRORS: Record<FilterKind, string> = {
  logs: 'error creating filter: max limit reached',
  blocks: 'error creating block filter: max limit reached',
  pendingTransactions: 'error creating pending tx filter: max limit reached',
};

/**
 * The per-IP place of a new filter of the client at `ip` (nothing to take without an address or the
 * access module), taken synchronously: its release. At `[limits] max_filters_per_ip` the answer is the
 * node's own error for a filter over the cap, as at filter-cap.
 */
export function takeFilterPlace(access: AccessService | undefined, kind: FilterKind, ip: string | undefined): () => void {
  if (access === undefined || ip === undefined) return NO_PLACE;
  const place = access.takeIpPlace('evm', 'filters', ip);
  if (place === undefined) throw new ApplicationError(CAP_ERRORS[kind]);
  return place;
}

const NO_PLACE = (): void => undefined;

/** The `kind` label of the installed filters gauge. */
export const METRIC_KINDS: Record<FilterKind, string> = { logs: 'logs', blocks: 'block', pendingTransactions: 'pendingTransactions' };

/** go-ethereum's subscription type numbers, which the getFilterLogs error prints. */
export const TYPE_NUMBERS: Record<FilterKind, number> = { logs: 1, pendingTransactions: 4, blocks: 5 };

export const notFound = (id: string): string => `filter ${id} not found`;
export const notLogs = (id: string, kind: FilterKind): string => `filter ${id} doesn't have a LogsSubscription type: got ${TYPE_NUMBERS[kind]}`;

/**
 * What eth's filter methods call: the polling filters of this process (in memory), or the filters every
 * replica shares through Redis.
 */
export interface FilterStore {
  /** A new filter of the client at `ip` (undefined: not capped per address); its id. */
  create(kind: FilterKind, criteria?: LogFilter, ip?: string): string | Promise<string>;
  /** What arrived since the last poll; polling keeps the filter alive. */
  changes(id: string): Json[] | Promise<Json[]>;
  /** A log filter's whole range, queried again (does not keep the filter alive). */
  logs(id: string): Promise<RpcLog[]>;
  uninstall(id: string): boolean | Promise<boolean>;
}

/** The injection token of the FilterStore of the configuration. */
export const FILTER_STORE = Symbol('FilterStore');
