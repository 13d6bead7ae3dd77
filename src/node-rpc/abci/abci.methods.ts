import { defineMethod, IMMUTABLE, LATEST, param, returns } from '../../rpc/method';
import type { JsonObject } from '../../rpc/json';
import { bool, hexbytes, int64, string } from '../params/codecs';

/** The ABCI category: the application's info and queries. */
const read = { group: 'abci', idempotent: true, result: returns<JsonObject>() } as const;

export const abci_info = defineMethod({ ...read, name: 'abci_info', params: [], cache: () => LATEST });
export const abci_query = defineMethod({
  ...read,
  name: 'abci_query',
  params: [param('path', string), param('data', hexbytes), param('height', int64), param('prove', bool)],
  // Height 0 is the latest.
  height: (a) => (a.height > 0n ? a.height : undefined),
  cache: (a) => (a.height > 0n ? IMMUTABLE : LATEST),
});

export const abciMethods = [abci_info, abci_query];
