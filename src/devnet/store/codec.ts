/**
 * The store's value encoding: JSON with bigint and byte arrays tagged (`{"$n":"5"}`, `{"$b":"AQI="}`),
 * so every record of the chain model round-trips without a schema per type.
 */

export function encodeValue(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, encoded: unknown) {
    // `this[key]` is the value before toJSON (a Buffer would otherwise arrive as {type,data}).
    const raw = this[key];
    if (typeof raw === 'bigint') return { $n: raw.toString() };
    if (raw instanceof Uint8Array) return { $b: Buffer.from(raw).toString('base64') };
    return encoded;
  });
}

export function decodeValue<T>(text: string): T {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const tagged = value as { $n?: unknown; $b?: unknown };
      if (typeof tagged.$n === 'string') return BigInt(tagged.$n);
      if (typeof tagged.$b === 'string') return new Uint8Array(Buffer.from(tagged.$b, 'base64'));
    }
    return value;
  }) as T;
}
