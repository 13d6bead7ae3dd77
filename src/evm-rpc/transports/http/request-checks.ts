import type { IncomingHttpHeaders } from 'node:http';

/** go-ethereum's limit on a request body. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

const ACCEPTED_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest']);

/** go-ethereum's validateRequest, in its order: the reply to send instead of serving, if any. */
export function refuseRequest(headers: IncomingHttpHeaders): { status: number; text: string } | undefined {
  const length = Number(headers['content-length']);
  if (length > MAX_BODY_BYTES) return { status: 413, text: `content length too large (${length}>${MAX_BODY_BYTES})` };
  const mediaType = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (!ACCEPTED_TYPES.has(mediaType)) return { status: 415, text: 'invalid content type, only application/json is supported' };
  return undefined;
}
