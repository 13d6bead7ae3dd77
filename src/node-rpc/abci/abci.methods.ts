import type { NodeBackend } from '../../backends/node-backend';
import { defineMethod, IMMUTABLE, LATEST, param, type AnyMethod } from '../../rpc/method';
import { bool, hexbytes, int64, string } from '../params/codecs';

/** The ABCI category: the application's info and queries. */
export function abciMethods(b: NodeBackend): AnyMethod[] {
  const read = { group: 'abci', idempotent: true, forward: true } as const;
  return [
    defineMethod({ ...read, name: 'abci_info', params: [], cache: () => LATEST, handler: () => b.abciInfo() }),
    defineMethod({
      ...read,
      name: 'abci_query',
      params: [param('path', string), param('data', hexbytes), param('height', int64), param('prove', bool)],
      // Height 0 is the latest.
      height: (a) => (a.height > 0n ? a.height : undefined),
      cache: (a) => (a.height > 0n ? IMMUTABLE : LATEST),
      handler: (a) => b.abciQuery(a.path, a.data, a.height, a.prove),
    }),
  ];
}
