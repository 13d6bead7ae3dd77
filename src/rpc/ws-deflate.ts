import type { PerMessageDeflateOptions } from 'ws';
import { DEFLATE_LEVEL, type CompressionSettings } from './http/answer-compression';

/**
 * WebSocket permessage-deflate as `[compression] ws_permessage_deflate` sets it (off by default). zlib's
 * memory per connection is bounded: the gateway compresses with a 4 KiB window (12 bits) and memLevel 5,
 * 32 KiB in all; it inflates with the window the client chose, 39 KiB at most. Messages under
 * `min_bytes` go uncompressed; a client's message is held to the gateway's size limit once inflated (ws
 * counts the inflated bytes against maxPayload).
 */
export function wsDeflateOf(settings: CompressionSettings): PerMessageDeflateOptions | false {
  if (!settings.ws_permessage_deflate) return false;
  return { serverMaxWindowBits: 12, zlibDeflateOptions: { level: DEFLATE_LEVEL, memLevel: 5 }, threshold: settings.min_bytes };
}
