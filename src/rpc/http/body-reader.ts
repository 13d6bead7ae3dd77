import type { IncomingMessage } from 'node:http';

/**
 * Reads a request body as UTF-8 text; `done` gets undefined, and reading stops, once it exceeds
 * `limit` bytes. A connection lost mid-body never calls `done` (there is no one left to answer).
 */
export function readBody(req: IncomingMessage, limit: number, done: (text: string | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) {
      req.off('data', onData);
      req.off('end', onEnd);
      return done(undefined);
    }
    chunks.push(chunk);
  };
  const onEnd = (): void => done(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
  req.on('data', onData);
  req.on('end', onEnd);
}
