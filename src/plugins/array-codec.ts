import { CodecError, type Codec } from '../rpc/codec';
import type { Json } from '../rpc/json';
import { jsonKind } from '../evm-rpc/codec/go-json';

/** One item decoded, its failure prefixed with its index. */
function decodeItem<T>(decode: (value: unknown) => T, value: unknown, index: number): T {
  try {
    return decode(value);
  } catch (err) {
    if (err instanceof CodecError) throw new CodecError(`item ${index}: ${err.message}`);
    throw err;
  }
}

/**
 * A parameter that is a JSON array whose items `item` decodes, on either interface (`arrayOf(evmCodecs.address)`,
 * `arrayOf(nodeCodecs.int64)`). A value that is not an array fails with `json: cannot unmarshal <kind> into Go
 * value of type []<itemType>` (`itemType` defaults to `interface {}`), an item with `item <index>: <the item codec's text>`; `maxItems` caps the length. In a
 * node RPC URI the value is the array's JSON text (`?heights=["1","2"]`, or bare `[1,2]`): each item is read as the
 * item codec reads a URI value.
 */
export function arrayOf<T>(item: Codec<T>, options: { readonly maxItems?: number; readonly itemType?: string } = {}): Codec<T[]> {
  const { maxItems, itemType = 'interface {}' } = options;
  const checked = (value: unknown): unknown[] => {
    if (!Array.isArray(value)) throw new CodecError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type []${itemType}`);
    if (maxItems !== undefined && value.length > maxItems) throw new CodecError(`expected at most ${maxItems} items, got ${value.length}`);
    return value;
  };
  const decodeText = item.decodeText;
  return {
    decode: (value) => checked(value).map((v, i) => decodeItem((x) => item.decode(x), v, i)),
    decodeText: (text) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new CodecError(`expected a JSON array, got ${JSON.stringify(text)}`);
      }
      return checked(parsed).map((v, i) =>
        decodeItem((x) => (decodeText !== undefined && (typeof x === 'string' || typeof x === 'number') ? decodeText(String(x)) : item.decode(x)), v, i),
      );
    },
    zero: () => [],
    encode: (values) => values.map((v) => (item.encode ? item.encode(v) : (v as unknown as Json))),
  };
}
