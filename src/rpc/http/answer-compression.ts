import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { GatewayOwnConfig } from '../../config/config.types';
import type { HeaderList } from './cors';

export type CompressionSettings = GatewayOwnConfig['compression'];

/**
 * zlib's deflate level (gzip, and permessage-deflate): JSON-RPC answers are mostly hex, which level 1
 * packs within 10 % of level 6 (zlib's default) for about 60 % of its CPU (bench/compression.js).
 */
export const DEFLATE_LEVEL = 1;
/** Brotli's quality: 4 costs about what gzip does, where its default (11) costs a hundred times more. */
const BROTLI_QUALITY = 4;

export type AnswerEncoding = 'br' | 'gzip';

/**
 * The encoding an Accept-Encoding header allows, by its weights (`q`): br or gzip (`x-gzip` too), br on a
 * tie; `*` stands for either one the header does not name; a weight of 0 refuses.
 */
export function encodingFor(header: string | undefined): AnswerEncoding | undefined {
  if (header === undefined) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [coding, ...params] = part.split(';');
    const name = coding.trim().toLowerCase();
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(name === 'x-gzip' ? 'gzip' : name, q === undefined ? 1 : Number(q));
  }
  const star = weights.get('*') ?? 0;
  const br = weights.get('br') ?? star;
  const gzip = weights.get('gzip') ?? star;
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

/**
 * Sends HTTP answers, compressed when they are `min_bytes` or more and the client accepts br or gzip
 * (deflate is not offered: every client that takes it takes gzip, the same bytes in a format clients
 * have long read in two ways). Such answers carry `Vary: Accept-Encoding` whether compressed or not, as
 * their form depends on it; smaller ones never vary. zlib runs off the event loop (its thread pool), so
 * a large answer does not hold other requests up.
 */
export class AnswerCompressor {
  constructor(private readonly settings: CompressionSettings) {}

  /** Writes the status, the headers (without a length) and the body. */
  send(req: IncomingMessage, res: ServerResponse, status: number, headers: HeaderList, body: string): void {
    const size = Buffer.byteLength(body);
    if (!this.settings.http || size < this.settings.min_bytes) return plain(res, status, headers, body, size);
    const varying = [...headers, 'Vary', 'Accept-Encoding'];
    const encoding = encodingFor(req.headers['accept-encoding']);
    if (encoding === undefined) return plain(res, status, varying, body, size);
    const sendEncoded = (err: Error | null, encoded: Buffer): void => {
      if (err) return plain(res, status, varying, body, size);
      if (res.destroyed) return;
      res.writeHead(status, [...varying, 'Content-Encoding', encoding, 'Content-Length', String(encoded.length)]);
      res.end(encoded);
    };
    if (encoding === 'gzip') gzip(body, { level: DEFLATE_LEVEL }, sendEncoded);
    else brotliCompress(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: size } }, sendEncoded);
  }
}

/** A string body goes out in one write with the head (node:http joins them; a Buffer would take two). */
function plain(res: ServerResponse, status: number, headers: HeaderList, body: string, size: number): void {
  res.writeHead(status, [...headers, 'Content-Length', String(size)]);
  res.end(body);
}
