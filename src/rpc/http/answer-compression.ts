import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzip } from 'node:zlib';
import type { GatewayOwnConfig } from '../../config/config.types';
import type { HeaderList } from './cors';
import { frame } from '../dialect';
import { answerBytes, type AnswerPieces } from '../answer-pieces';

export type CompressionSettings = GatewayOwnConfig['compression'];

/**
 * zlib's deflate level (gzip, and permessage-deflate): JSON-RPC answers are mostly hex, which level 1
 * packs within 10 % of level 6 (zlib's default) for about 60 % of its CPU (bench/compression.js).
 */
export const DEFLATE_LEVEL = 1;

/**
 * Whether an Accept-Encoding header allows gzip, by its weights (`q`): `gzip` or `x-gzip`, else `*`; a
 * weight of 0 refuses.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let gzip: number | undefined;
  let star = 0;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.split(';');
    const name = coding.trim().toLowerCase();
    if (name !== 'gzip' && name !== 'x-gzip' && name !== '*') continue;
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    if (name === '*') star = weight;
    else gzip = weight;
  }
  return (gzip ?? star) > 0;
}

/**
 * Sends HTTP answers, gzip-compressed when they are `min_bytes` or more and the client accepts gzip.
 * Neither br nor deflate is offered: brotli at quality 4 costs 2-3 times gzip level 1's CPU for 17-38 %
 * fewer bytes than gzip already leaves, and deflate is gzip's compressor without its checksum. Such
 * answers carry `Vary: Accept-Encoding` whether compressed or not, as their form depends on it; smaller
 * ones never vary. zlib runs off the event loop (its thread pool), so a large answer does not hold other
 * requests up.
 */
export class AnswerCompressor {
  constructor(private readonly settings: CompressionSettings) {}

  /** Writes the status, the headers (without a length) and the body of `size` bytes. */
  send(req: IncomingMessage, res: ServerResponse, status: number, headers: HeaderList, body: string | AnswerPieces, size = answerBytes(body)): void {
    if (!this.settings.http || size < this.settings.min_bytes) return plain(res, status, headers, body, size);
    const varying = [...headers, 'Vary', 'Accept-Encoding'];
    if (!acceptsGzip(req.headers['accept-encoding'])) return plain(res, status, varying, body, size);
    gzip(typeof body === 'string' ? body : frame('', body, ''), { level: DEFLATE_LEVEL }, (err, zipped) => {
      if (err) return plain(res, status, varying, body, size);
      if (res.destroyed) return;
      res.writeHead(status, [...varying, 'Content-Encoding', 'gzip', 'Content-Length', String(zipped.length)]);
      res.end(zipped);
    });
  }
}

/**
 * A string body goes out in one write with the head (node:http joins them); the pieces of a large
 * answer passed on as bytes go out corked, in one write of several buffers, never joined.
 */
function plain(res: ServerResponse, status: number, headers: HeaderList, body: string | AnswerPieces, size: number): void {
  res.writeHead(status, [...headers, 'Content-Length', String(size)]);
  if (typeof body === 'string') return void res.end(body);
  res.cork();
  for (const piece of body) res.write(piece);
  res.end();
}
