import type { Json } from './json';

/**
 * A parameter codec: how one parameter is read from the wire. Each interface has its own codecs (the
 * node RPC's amino-JSON and URI forms, go-ethereum's hex encodings); the engine only calls them.
 */
export interface Codec<T> {
  /** Reads the JSON-RPC param value; throws CodecError with the text the interface's clients expect. */
  decode(value: unknown): T;
  /** Reads a URI query value (node RPC `GET /<method>?k=v`); absent for codecs with no URI form. */
  decodeText?(text: string): T;
  /** The value a parameter gets when left out and it is not optional (Go's zero value). */
  readonly zero?: () => T;
  /** Writes a decoded value back in its JSON-RPC form (a URI call forwarded upstream as JSON-RPC). */
  encode?(value: T): Json;
}

/**
 * A value that could not be decoded; the message is the detail the interface's clients expect (the
 * dialect adds its prefix: `error converting json params to arguments: …`, `invalid argument 0: …`).
 */
export class CodecError extends Error {}

/** What a codec yields. */
export type Decoded<C> = C extends Codec<infer T> ? T : never;
