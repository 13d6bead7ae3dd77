/** JSON values, as the chain's own encodings (genesis.json, CometBFT's JSON of its types, tracer results) are built. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * The wire encoders of chain/ return typed interfaces of JSON values; TypeScript cannot see that an
 * interface without an index signature is a JsonObject, so results pass through here.
 */
export function asJson<T extends object>(value: T): JsonObject {
  return value as unknown as JsonObject;
}
