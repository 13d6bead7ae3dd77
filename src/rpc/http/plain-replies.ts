import type { ServerResponse } from 'node:http';
import type { HeaderList } from './cors';

/** Go's http.Error: the text and a newline, as text/plain. */
export function httpError(res: ServerResponse, status: number, text: string, headers: HeaderList): void {
  const body = text + '\n';
  res.writeHead(status, [
    ...headers,
    'Content-Type', 'text/plain; charset=utf-8',
    'X-Content-Type-Options', 'nosniff',
    'Content-Length', String(Buffer.byteLength(body)),
  ]);
  res.end(body);
}

/** A status with no body: 204 (which may not carry a length), 405. */
export function emptyReply(res: ServerResponse, status: number, headers: HeaderList): void {
  res.writeHead(status, status === 204 ? [...headers] : [...headers, 'Content-Length', '0']);
  res.end();
}
