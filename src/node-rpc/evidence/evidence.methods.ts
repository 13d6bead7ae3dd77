import type { NodeBackend } from '../../backends/node-backend';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import { evidence } from '../params/codecs';

/** The Evidence category. */
export function evidenceMethods(b: NodeBackend): AnyMethod[] {
  return [
    defineMethod({
      group: 'evidence',
      name: 'broadcast_evidence',
      params: [param('evidence', evidence)],
      forward: true,
      handler: (a) => b.broadcastEvidence(a.evidence),
    }),
  ];
}
