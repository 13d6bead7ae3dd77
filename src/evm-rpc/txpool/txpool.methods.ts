import { defineMethod, param, returns } from '../../rpc/method';
import type { JsonObject } from '../../rpc/json';
import * as c from '../codec/codecs';
import type { TxPoolContent } from '../evm-types';

/** txpool: the backend's mempool, in go-ethereum's pending/queued shapes. */
const read = { group: 'txpool', idempotent: true } as const;

export const txpool_content = defineMethod({ ...read, name: 'txpool_content', params: [], result: returns<TxPoolContent>() });
export const txpool_contentFrom = defineMethod({ ...read, name: 'txpool_contentFrom', params: [param('address', c.address)], result: returns<JsonObject>() });
export const txpool_inspect = defineMethod({ ...read, name: 'txpool_inspect', params: [], result: returns<JsonObject>() });
export const txpool_status = defineMethod({ ...read, name: 'txpool_status', params: [], result: returns<JsonObject>() });

export const txpoolMethods = [txpool_content, txpool_contentFrom, txpool_inspect, txpool_status];
