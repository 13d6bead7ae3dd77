import type { JsonObject, NodeBackend } from '../../backends/node-backend';
import type { MethodSpec } from '../../rpc/method-spec';
import { param } from '../node-method';

/** The Evidence category. */
export function evidenceMethods(b: NodeBackend): MethodSpec[] {
  return [
    {
      group: 'evidence',
      name: 'broadcast_evidence',
      params: [param('evidence', 'evidence')],
      handler: (a) => b.broadcastEvidence(a.evidence as JsonObject | null),
    },
  ];
}
