import type { FastifyReply } from 'fastify';

export const CACHE_CONTROL_IMMUTABLE = 'public, max-age=86400';

export function serverTime(reply: FastifyReply): FastifyReply {
  return reply.header('X-Server-Time', Math.floor(Date.now() / 1000).toString());
}

/** Go's http.NotFound. */
export function notFoundText(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .header('Content-Type', 'text/plain; charset=utf-8')
    .header('X-Content-Type-Options', 'nosniff')
    .send('404 page not found\n');
}

export function sendJson(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('Content-Type', 'application/json').send(body);
}
