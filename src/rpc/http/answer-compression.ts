import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzip } from 'node:zlib';
import type { GatewayOwnConfig } from '../../config/config.types';
import type { HeaderList } from './cors';

export type CompressionSettings = GatewayOwnConfig['compression'];

/**
 * zlib's level for answers: JSON-RPC answers are mostly hex, which level 4 packs within a few percent of
 * level 6 (the default) for about two thirds of its CPU (bench/compression.js).
 */
export const GZIP_LEVEL = 4;

/**
 * Whether an Accept-Encoding header allows gzip: `gzip`, `x-gzip` or `*` with a non-zero weight; an
 * explicit `gzip;q=0` refuses it whatever `*` says.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let star = false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.split(';');
    const name = coding.trim().toLowerCase();
    if (name !== 'gzip' && name !== 'x-gzip' && name !== '*') continue;
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    const allowed = q === undefined || Number(q) > 0;
    if (name !== '*') return allowed;
    star = allowed;
  }
  return star;
}

/**
 * Sends HTTP answers, gzip-compressed when they are `min_bytes` or more and the client accepts gzip
 * (deflate and br are not offered: every client that takes them takes gzip, and br costs several times
 * gzip's CPU). Such answers carry `Vary: Accept-Encoding` whether compressed or not, as their form depends
 * on it; smaller ones never vary. zlib runs off the event loop (its thread pool), so a large answer does
 * not hold other requests up.
 */
export class AnswerCompressor {
  constructor(private readonly settings: CompressionSettings) {}

  /** Writes the status, the headers (without a length) and the body. */
  send(req: IncomingMessage, res: ServerResponse, status: number, headers: HeaderList, body: string): void {
    const size = Buffer.byteLength(body);
    if (!this.settings.http || size < this.settings.min_bytes) return plain(res, status, headers, body, size);
    const varying = [...headers, 'Vary', 'Accept-Encoding'];
    if (!acceptsGzip(req.headers['accept-encoding'])) return plain(res, status, varying, body, size);
    gzip(body, { level: GZIP_LEVEL }, (err, zipped) => {
      if (err) return plain(res, status, varying, body, size);
      if (res.destroyed) return;
      res.writeHead(status, [...varying, 'Content-Encoding', 'gzip', 'Content-Length', String(zipped.length)]);
      res.end(zipped);
    });
  }
}

/** A string body goes out in one write with the head (node:http joins them; a Buffer would take two). */
function plain(res: ServerResponse, status: number, headers: HeaderList, body: string, size: number): void {
  res.writeHead(status, [...headers, 'Content-Length', String(size)]);
  res.end(body);
}
