import type { JsonObject } from '../../node-backend';

/**
 * The wire encoders of chain/ return typed interfaces of JSON values; TypeScript cannot see that an
 * interface without an index signature is a JsonObject, so results pass through here.
 */
export function asJson<T extends object>(value: T): JsonObject {
  return value as unknown as JsonObject;
}
