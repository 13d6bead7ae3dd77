import type { FastifyReply, FastifyRequest } from 'fastify';

/** rs/cors' default policy, which Evmos applies to its HTTP server: any origin, simple methods and headers. */
const ALLOWED_METHODS = new Set(['GET', 'POST', 'HEAD']);
const ALLOWED_HEADERS = new Set(['origin', 'accept', 'content-type', 'x-requested-with']);

function requestedHeaders(req: FastifyRequest): string[] {
  const header = req.headers['access-control-request-headers'];
  return (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
}

/**
 * An onRequest hook: answers preflights itself (204, with the grant only when the request is
 * allowed) and marks actual cross-origin requests as readable by any origin.
 */
export async function defaultCors(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  const origin = req.headers.origin;
  const preflightMethod = req.headers['access-control-request-method'];
  if (req.method === 'OPTIONS' && typeof preflightMethod === 'string') {
    reply.header('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    const headers = requestedHeaders(req);
    if (origin && ALLOWED_METHODS.has(preflightMethod.toUpperCase()) && headers.every((h) => ALLOWED_HEADERS.has(h))) {
      reply.header('Access-Control-Allow-Origin', '*').header('Access-Control-Allow-Methods', preflightMethod.toUpperCase());
      if (headers.length > 0) reply.header('Access-Control-Allow-Headers', headers.join(', '));
    }
    return reply.code(204).send();
  }
  reply.header('Vary', 'Origin');
  if (origin && ALLOWED_METHODS.has(req.method)) reply.header('Access-Control-Allow-Origin', '*');
}
