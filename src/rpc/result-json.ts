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
 * An upstream's result that nothing in the gateway reads: its wire form, written to the client as it
 * came and parsed only if something asks for its value (a cache rule's `keep`, a chain check). A
 * client's call whose definition changes nothing gets one, so that its answer costs no parse however
 * large it is. A large one is kept as the bytes it came in (`bytes`): an HTTP answer is then written
 * from them without ever becoming text; a small one as text, which costs less to keep and to write.
 */
export class UnreadJson {
  private decoded: string | undefined;
  private parsed: Json | undefined;
  private utf8: number | undefined;

  private constructor(
    text: string | undefined,
    /** The wire bytes of a large result, in the pieces they were read in. */
    readonly bytes: readonly Buffer[] | undefined,
    /** The size of the wire form: bytes, or UTF-16 units for text (as the cache counts). */
    readonly size: number,
  ) {
    this.decoded = text;
    if (bytes !== undefined) this.utf8 = size;
  }

  static ofText(text: string): UnreadJson {
    return new UnreadJson(text, undefined, text.length);
  }

  /** A piece that is a small part of a larger buffer (a socket's read) is copied out: keeping it must not hold the rest. */
  static ofBytes(pieces: readonly Buffer[]): UnreadJson {
    let size = 0;
    for (const piece of pieces) size += piece.length;
    return new UnreadJson(undefined, pieces.map(own), size);
  }

  /** A result read whole into one buffer: text when small, else those bytes. */
  static ofWire(bytes: Buffer): UnreadJson {
    return bytes.length < LARGE_RESULT ? UnreadJson.ofText(bytes.toString('utf8')) : UnreadJson.ofBytes([bytes]);
  }

  /** The size of the wire form in bytes (UTF-8 of the text measured once: a cached result is measured once, not per hit). */
  get wireBytes(): number {
    this.utf8 ??= Buffer.byteLength(this.decoded!);
    return this.utf8;
  }

  /** The wire text (decoded once from the bytes of a large result). */
  get text(): string {
    this.decoded ??= Buffer.concat(this.bytes!).toString('utf8');
    return this.decoded;
  }

  /** The value, parsed once (its wire text kept on it, see RAW_JSON). */
  get value(): Json {
    this.parsed ??= attachRawJson(JSON.parse(this.text) as Json, this.text);
    return this.parsed;
  }
}

/** From this size an unread result is kept as bytes, never decoded to text. */
export const LARGE_RESULT = 8 * 1024;

function own(piece: Buffer): Buffer {
  if (piece.buffer.byteLength <= 2 * piece.length) return piece;
  const copy = Buffer.allocUnsafeSlow(piece.length);
  piece.copy(copy);
  return copy;
}

/** A result as a backend hands it on: a value, or an upstream's wire text not yet read. */
export type WireResult = Json | UnreadJson;

/** The value of a result, parsing an unread one. */
export function readResult<T>(result: T | UnreadJson): T | Json {
  return result instanceof UnreadJson ? result.value : result;
}

/** Whether a result is null, told without parsing an unread one. */
export function isNullResult(result: unknown): boolean {
  if (!(result instanceof UnreadJson)) return result === null;
  return result.size < 16 && result.text.trim() === 'null';
}

/** The wire bytes of a large unread result, which an HTTP answer is written from as they are. */
export function unreadBytes(result: unknown): readonly Buffer[] | undefined {
  return result instanceof UnreadJson ? result.bytes : undefined;
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
