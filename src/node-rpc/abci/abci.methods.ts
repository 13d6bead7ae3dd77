import type { NodeBackend } from '../../backends/node-backend';
import type { MethodSpec } from '../../rpc/method-spec';
import { param } from '../node-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/** The ABCI category: the application's info and queries. */
export function abciMethods(b: NodeBackend): MethodSpec[] {
  const group = 'abci';
  return [
    { group, name: 'abci_info', params: [], idempotent: true, handler: () => b.abciInfo() },
    {
      group,
      name: 'abci_query',
      params: [param('path', 'string'), param('data', 'hexbytes'), param('height', 'int64'), param('prove', 'bool')],
      idempotent: true,
      handler: (a: A) => b.abciQuery(a.path, a.data, a.height, a.prove),
    },
  ];
}
