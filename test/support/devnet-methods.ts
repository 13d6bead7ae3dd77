import { DevnetCache } from '../../src/backends/embedded/devnet-cache';
import { DevnetMethods } from '../../src/backends/embedded/devnet-methods';
import type { HandlerTable } from '../../src/backends/embedded/handler-table';
import { positionalParams, type ParamsForm } from '../../src/backends/params-form';

/**
 * A devnet backend over a test double's handler table, keeping no answer (`[cache] max_bytes = 0`): a
 * double's chain changes without a head that moves, so each call must reach it.
 */
export function uncachedDevnetMethods(table: HandlerTable, form: ParamsForm = positionalParams): DevnetMethods {
  return new DevnetMethods(table, new DevnetCache(0, { latestHeight: 0n, catchingUp: false }), form);
}
