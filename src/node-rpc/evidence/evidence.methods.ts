import { defineMethod, param, returns } from '../../rpc/method';
import type { JsonObject } from '../../rpc/json';
import { evidence } from '../params/codecs';

/** The Evidence category. */
export const broadcast_evidence = defineMethod({ group: 'evidence', name: 'broadcast_evidence', params: [param('evidence', evidence)], result: returns<JsonObject>() });

export const evidenceMethods = [broadcast_evidence];
