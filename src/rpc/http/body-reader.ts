import type { IncomingMessage } from 'node:http';

/**
 * How much of a body over its limit is read and thrown away before it is answered. A client still
 * sending when the server closes the connection gets a reset (undici's fetch: EPIPE) instead of the
 * answer; so the rest of the body is discarded (kept nowhere) until it ends, and only past this many
 * bytes, or this long, is the answer sent while the client still sends (a client that stops sending
 * mid-body is answered then, as go-ethereum answers at once).
 */
export const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
// Long enough for a client on a busy machine to finish writing a body of some MB (at 1 s, a 12 MB body
// written over loopback while both cores were busy was cut, and its client got EPIPE for the answer).
export const DISCARD_MAX_MS = 3_000;

/**
 * Reads a request body as UTF-8 text and its size in bytes; `done` gets undefined once it exceeds `limit` bytes: after the
 * rest of the body was read and discarded (up to `DISCARD_MAX_BYTES` more or `DISCARD_MAX_MS`), so that
 * the client is reading when it is answered. A connection lost mid-body never calls `done` (there is no one left to
 * answer).
 */
export function readBody(req: IncomingMessage, limit: number, done: (text: string | undefined, bytes: number) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) {
      chunks.length = 0;
      req.off('data', onData);
      req.off('end', onEnd);
      return discard(req, size, done);
    }
    chunks.push(chunk);
  };
  const onEnd = (): void => done(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8'), size);
  req.on('data', onData);
  req.on('end', onEnd);
}

/** Reads and drops the rest of a body over its limit, then calls `done(undefined)`. */
export function discard(req: IncomingMessage, read: number, done: (text: undefined, bytes: number) => void): void {
  let answered = false;
  const answer = (): void => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    req.off('data', onData);
    done(undefined, read);
  };
  const timer = setTimeout(answer, DISCARD_MAX_MS);
  const onData = (chunk: Buffer): void => {
    read += chunk.length;
    if (read > DISCARD_MAX_BYTES) answer();
  };
  req.on('data', onData);
  req.once('end', answer);
}
