import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
import { discard, readBody } from './body-reader';

/** Why a body could not be read: its status (415 for an unknown encoding, 400 for a broken one) and a line. */
export interface UnreadableBody {
  readonly status: 400 | 415;
  readonly reason: string;
}

/**
 * Reads a request body as readBody does (its size: the inflated bytes), inflating it when its Content-Encoding is gzip. The limit holds
 * for the inflated bytes (and for the bytes sent): inflating stops at it, so a small body that inflates
 * past it (a gzip bomb) gets the same answer as a body over the limit, and no more of it is inflated.
 * `unreadable` gets a body in another encoding than identity or gzip, or one that is not valid gzip.
 */
export function readDecodedBody(req: IncomingMessage, limit: number, done: (text: string | undefined, bytes: number) => void, unreadable: (why: UnreadableBody) => void): void {
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return readBody(req, limit, done);
  if (encoding !== 'gzip' && encoding !== 'x-gzip') {
    return readBody(req, limit, (text, bytes) => (text === undefined ? done(undefined, bytes) : unreadable({ status: 415, reason: `unsupported Content-Encoding ${encoding}` })));
  }
  const gunzip = createGunzip();
  const chunks: Buffer[] = [];
  let sent = 0;
  let size = 0;
  let ended = false;
  let settled = false;
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    req.off('data', onData);
    req.off('end', onEnd);
    chunks.length = 0;
    gunzip.destroy();
    return true;
  };
  const over = (): void => {
    if (!settle()) return;
    if (ended) done(undefined, sent);
    else discard(req, sent, done);
  };
  const onData = (chunk: Buffer): void => {
    sent += chunk.length;
    if (sent > limit) return over();
    gunzip.write(chunk);
  };
  const onEnd = (): void => {
    ended = true;
    gunzip.end();
  };
  gunzip.on('data', (out: Buffer) => {
    size += out.length;
    if (size > limit) return over();
    chunks.push(out);
  });
  gunzip.on('end', () => {
    const text = Buffer.concat(chunks, size).toString('utf8');
    if (settle()) done(text, size);
  });
  gunzip.on('error', (err: Error) => {
    const wasEnded = ended;
    if (!settle()) return;
    const why: UnreadableBody = { status: 400, reason: `invalid gzip body: ${err.message}` };
    if (wasEnded) unreadable(why);
    else discard(req, sent, () => unreadable(why));
  });
  req.on('data', onData);
  req.on('end', onEnd);
}
