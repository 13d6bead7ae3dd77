import type { Json } from './json';

/**
 * A backend may keep a result's exact wire text on the (unchanged) object or array under this shared
 * symbol (an upstream answer passed on as it came); both surfaces write that text as the result
 * instead of serialising the object again.
 */
export const RAW_JSON: unique symbol = Symbol.for('rpc-gateway.raw-json');

/**
 * Attaches `raw` (the exact JSON text of `value`) to an object or array, not enumerable (JSON.stringify,
 * spreads and key walks never see it); other values pass as they are. A large block passed on unchanged
 * then costs no stringify, a cached one neither. Anyone who changes such an object builds a new one (a
 * spread drops the text), as every surface does.
 */
export function attachRawJson<T extends Json>(value: T, raw: string | undefined): T {
  if (raw !== undefined && typeof value === 'object' && value !== null) {
    Object.defineProperty(value, RAW_JSON, { value: raw, enumerable: false, writable: false, configurable: false });
  }
  return value;
}

/**
 * An upstream's result that nothing in the gateway reads: its wire text, written to the client as it
 * came and parsed only if something asks for its value (a cache rule's `keep`, a chain check). A
 * client's call whose definition changes nothing gets one, so that its answer costs no parse however
 * large it is.
 */
export class UnreadJson {
  private parsed: Json | undefined;

  constructor(readonly text: string) {}

  /** The value, parsed once (its wire text kept on it, see RAW_JSON). */
  get value(): Json {
    if (this.parsed === undefined) {
      this.parsed = attachRawJson(JSON.parse(this.text) as Json, this.text);
    }
    return this.parsed;
  }
}

/** A result as a backend hands it on: a value, or an upstream's wire text not yet read. */
export type WireResult = Json | UnreadJson;

/** The value of a result, parsing an unread one. */
export function readResult<T>(result: T | UnreadJson): T | Json {
  return result instanceof UnreadJson ? result.value : result;
}

/** Whether a result is null, told without parsing an unread one. */
export function isNullResult(result: unknown): boolean {
  return result instanceof UnreadJson ? result.text.trim() === 'null' : result === null;
}

/** The wire text kept on `value`, if any. */
export function rawJsonOf(value: unknown): string | undefined {
  if (value instanceof UnreadJson) return value.text;
  return typeof value === 'object' && value !== null ? (value as { [RAW_JSON]?: string })[RAW_JSON] : undefined;
}

/** The JSON text of a result: the wire text kept on it, else its serialisation. */
export function resultJson(result: unknown): string {
  return rawJsonOf(result) ?? JSON.stringify(result);
}
