import type { FastifyReply } from 'fastify';

/** Go's http.Error: the text and a newline, as text/plain. */
export function httpError(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply
    .code(status)
    .header('Content-Type', 'text/plain; charset=utf-8')
    .header('X-Content-Type-Options', 'nosniff')
    .send(text + '\n');
}
