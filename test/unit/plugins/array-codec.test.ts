import { arrayOf, evmCodecs, nodeCodecs } from '../../../src/plugins/api';
import { CodecError } from '../../../src/rpc/codec';

describe('arrayOf', () => {
  it('decodes each item with its codec, on either interface', () => {
    expect(arrayOf(evmCodecs.address).decode(['0x00000000000000000000000000000000000000AA'])).toEqual(['0x00000000000000000000000000000000000000aa']);
    expect(arrayOf(nodeCodecs.int64).decode(['1', '22'])).toEqual([1n, 22n]);
    expect(arrayOf(nodeCodecs.int64).encode!([1n, 22n])).toEqual(['1', '22']);
    expect(arrayOf(evmCodecs.uint64).encode!([16n])).toEqual(['0x10']);
  });

  it('refuses a value that is not an array, an item by its index, and too many items', () => {
    expect(() => arrayOf(evmCodecs.address, { itemType: 'common.Address' }).decode('0x1')).toThrow(
      new CodecError('json: cannot unmarshal string into Go value of type []common.Address'),
    );
    expect(() => arrayOf(nodeCodecs.int64).decode(['1', 2])).toThrow(/^item 1: invalid 64-bit integer encoding "2", expected string$/);
    expect(() => arrayOf(nodeCodecs.string, { maxItems: 1 }).decode(['a', 'b'])).toThrow('expected at most 1 items, got 2');
  });

  it('reads a node URI value as the JSON text of the array, items as URI values', () => {
    const heights = arrayOf(nodeCodecs.int64);
    expect(heights.decodeText!('[1,"2"]')).toEqual([1n, 2n]);
    expect(() => heights.decodeText!('1,2')).toThrow('expected a JSON array, got "1,2"');
    expect(heights.zero!()).toEqual([]);
  });
});
