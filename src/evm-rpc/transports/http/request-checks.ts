import type { IncomingHttpHeaders } from 'node:http';

const ACCEPTED_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest']);

/**
 * go-ethereum's validateRequest, in its order: the reply to send instead of serving, if any. `maxBody`:
 * `[json-rpc] http-body-limit` (cosmos/evm sets go-ethereum's limit from it).
 */
export function refuseRequest(headers: IncomingHttpHeaders, maxBody: number): { status: number; text: string } | undefined {
  const length = Number(headers['content-length']);
  if (length > maxBody) return { status: 413, text: `content length too large (${length}>${maxBody})` };
  const type = headers['content-type'];
  if (type !== 'application/json' && !ACCEPTED_TYPES.has((type ?? '').split(';')[0].trim().toLowerCase())) return { status: 415, text: 'invalid content type, only application/json is supported' };
  return undefined;
}
