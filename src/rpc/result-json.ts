/**
 * A backend may keep a result's exact wire text on the (unchanged) object or array under this shared
 * symbol (an upstream answer passed on as it came); both surfaces write that text as the result
 * instead of serialising the object again.
 */
export const RAW_JSON: unique symbol = Symbol.for('rpc-gateway.raw-json');

/** The wire text kept on `value`, if any. */
export function rawJsonOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? (value as { [RAW_JSON]?: string })[RAW_JSON] : undefined;
}

/** The JSON text of a result: the wire text kept on it, else its serialisation. */
export function resultJson(result: unknown): string {
  return rawJsonOf(result) ?? JSON.stringify(result);
}
