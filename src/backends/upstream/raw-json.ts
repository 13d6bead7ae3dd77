/**
 * The wire text of an upstream result, kept on the parsed object or array under a shared symbol (not
 * enumerable: JSON.stringify, spreads and key walks never see it). Both surfaces write that text
 * as the result instead of serialising the object again, so a large block the gateway passes on
 * unchanged costs one parse and no stringify, and a cached one neither. Anyone who changes such an
 * object must build a new one (a spread drops the text), which every surface already does.
 */
import { RAW_JSON } from '../../rpc/result-json';
import type { Json } from '../../rpc/json';

/** Attaches `raw` (the exact JSON text of `value`) to an object or array; other values pass as they are. */
export function attachRawJson<T extends Json>(value: T, raw: string | undefined): T {
  if (raw !== undefined && typeof value === 'object' && value !== null) {
    Object.defineProperty(value, RAW_JSON, { value: raw, enumerable: false, writable: false, configurable: false });
  }
  return value;
}
