import { Inject, Injectable } from '@nestjs/common';
import { NODE_BACKEND, type NodeBackend } from '../../backends/node-backend';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import { evidence } from '../params/codecs';

/** The Evidence category. */
@Injectable()
export class EvidenceMethods implements MethodSource {
  constructor(@Inject(NODE_BACKEND) private readonly b: NodeBackend) {}

  methods(): AnyMethod[] {
    return [
      defineMethod({
        group: 'evidence',
        name: 'broadcast_evidence',
        params: [param('evidence', evidence)],
        forward: true,
        handler: (a) => this.b.broadcastEvidence(a.evidence),
      }),
    ];
  }
}
