/** The EVM data-encoding rules, each with go-ethereum's exact -32602 message. */
import * as codecs from '../../../src/evm-rpc/codec/codecs';
import { EvmDialect } from '../../../src/evm-rpc/evm-dialect';
import { InvalidParamsError } from '../../../src/rpc/errors';
import { defineMethod, optional, param, type AnyMethod } from '../../../src/rpc/method';

type EvmParamType = keyof typeof codecs;

const dialect = new EvmDialect();
const decoder = { decode: (method: AnyMethod, params: unknown) => dialect.decodeParams(method, params) };
const spec = (...types: Array<EvmParamType | [EvmParamType, 'optional']>): AnyMethod =>
  defineMethod({
    name: 'test_method',
    group: 'test',
    params: types.map((t, i) => (Array.isArray(t) ? optional(`p${i}`, codecs[t[0]]) : param(`p${i}`, codecs[t]))),
    handler: () => null,
  });

/** Decodes `value` as the only argument of that type. */
const one = (type: EvmParamType, value: unknown): unknown => decoder.decode(spec(type), [value]).p0;

function failure(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidParamsError);
    return { code: (err as InvalidParamsError).code, message: (err as Error).message };
  }
  throw new Error('expected a failure');
}
const message = (type: EvmParamType, value: unknown): string => failure(() => one(type, value)).message;

const ADDRESS = '0x' + 'ab'.repeat(20);
const HASH = '0x' + 'cd'.repeat(32);

describe('positional arguments', () => {
  it('absent or null params = no arguments', () => {
    expect(decoder.decode(spec(['uint64', 'optional']), undefined)).toEqual({});
    expect(decoder.decode(spec(['uint64', 'optional']), null)).toEqual({});
  });
  it('an object is non-array args', () => {
    expect(failure(() => decoder.decode(spec('bool'), { a: 1 }))).toEqual({ code: -32602, message: 'non-array args' });
  });
  it('a string is non-array args', () => {
    expect(failure(() => decoder.decode(spec('bool'), 'x')).message).toBe('non-array args');
  });
  it('too many arguments', () => {
    expect(failure(() => decoder.decode(spec('bool'), [true, false])).message).toBe('too many arguments, want at most 1');
  });
  it('a required argument left out', () => {
    expect(failure(() => decoder.decode(spec('bool', 'bool'), [true])).message).toBe('missing value for required argument 1');
  });
  it('an optional (pointer) argument may be left out or null', () => {
    expect(decoder.decode(spec('bool', ['uint64', 'optional']), [true, null])).toEqual({ p0: true });
  });
  it('the position is named in the message', () => {
    expect(failure(() => decoder.decode(spec('bool', 'uint64'), [true, '0x01'])).message).toBe(
      'invalid argument 1: json: cannot unmarshal hex number with leading zero digits into Go value of type hexutil.Uint64',
    );
  });
});

describe('quantities', () => {
  it('0x0 is zero and the most compact form decodes', () => {
    expect(one('uint64', '0x0')).toBe(0n);
    expect(one('uint64', '0x1a')).toBe(26n);
    expect(one('big', '0xffffffffffffffffffff')).toBe(2n ** 80n - 1n);
  });
  it('the empty string is zero (hexutil)', () => expect(one('uint64', '')).toBe(0n));
  it('0x required', () =>
    expect(message('uint64', '12')).toBe('invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Uint64'));
  it('bare 0x', () => expect(message('uint64', '0x')).toBe('invalid argument 0: json: cannot unmarshal hex string "0x" into Go value of type hexutil.Uint64'));
  it('leading zeros', () =>
    expect(message('big', '0x00')).toBe('invalid argument 0: json: cannot unmarshal hex number with leading zero digits into Go value of type *hexutil.Big'));
  it('over 64 bits', () =>
    expect(message('uint64', '0x10000000000000000')).toBe('invalid argument 0: json: cannot unmarshal hex number > 64 bits into Go value of type hexutil.Uint64'));
  it('over 256 bits', () =>
    expect(message('big', '0x1' + '0'.repeat(64))).toBe('invalid argument 0: json: cannot unmarshal hex number > 256 bits into Go value of type *hexutil.Big'));
  it('not hex', () => expect(message('uint', '0xzz')).toBe('invalid argument 0: json: cannot unmarshal invalid hex string into Go value of type hexutil.Uint'));
  it('a JSON number', () => expect(message('uint64', 5)).toBe('invalid argument 0: json: cannot unmarshal non-string into Go value of type hexutil.Uint64'));
  it('decimal or hex (feeHistory block count)', () => {
    expect(one('decimalOrHex', 10)).toBe(10n);
    expect(one('decimalOrHex', '10')).toBe(10n);
    expect(one('decimalOrHex', '0xa')).toBe(10n);
    expect(message('decimalOrHex', 'ten')).toBe('invalid argument 0: hex string without 0x prefix');
  });
});

describe('unformatted data', () => {
  it('0x-hex, lower-cased; 0x is empty', () => {
    expect(one('data', '0xABcd')).toBe('0xabcd');
    expect(one('data', '0x')).toBe('0x');
  });
  it('odd length', () => expect(message('data', '0xabc')).toBe('invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type hexutil.Bytes'));
  it('0x required', () => expect(message('data', 'abcd')).toBe('invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Bytes'));
  it('not hex', () => expect(message('data', '0xzz')).toBe('invalid argument 0: json: cannot unmarshal invalid hex string into Go value of type hexutil.Bytes'));
});

describe('addresses and hashes', () => {
  it('20 and 32 bytes, lower-cased', () => {
    expect(one('address', ADDRESS.toUpperCase().replace('0X', '0x'))).toBe(ADDRESS);
    expect(one('hash', HASH)).toBe(HASH);
  });
  it('wrong address length is not wrapped', () =>
    expect(message('address', '0x' + 'ab'.repeat(19))).toBe('invalid argument 0: hex string has length 38, want 40 for common.Address'));
  it('wrong hash length', () => expect(message('hash', '0x' + 'ab'.repeat(20))).toBe('invalid argument 0: hex string has length 40, want 64 for common.Hash'));
  it('0x required', () => expect(message('address', 'ab'.repeat(20))).toBe('invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Address'));
  it('not hex', () => expect(message('address', '0x' + 'zz'.repeat(20))).toBe('invalid argument 0: json: cannot unmarshal invalid hex string into Go value of type common.Address'));
  it('non-string', () => expect(message('hash', 1)).toBe('invalid argument 0: json: cannot unmarshal non-string into Go value of type common.Hash'));
});

describe('block numbers', () => {
  it('tags', () => {
    for (const tag of ['latest', 'pending', 'earliest', 'safe', 'finalized']) expect(one('blockNumber', tag)).toEqual({ kind: 'tag', tag });
  });
  it('hex numbers', () => expect(one('blockNumber', '0x10')).toEqual({ kind: 'number', number: 16n }));
  it('decimal is refused', () => expect(message('blockNumber', '10')).toBe('invalid argument 0: hex string without 0x prefix'));
  it('a bare JSON number is refused', () => expect(message('blockNumber', 10)).toBe('invalid argument 0: hex string without 0x prefix'));
  it('leading zeros', () => expect(message('blockNumber', '0x01')).toBe('invalid argument 0: hex number with leading zero digits'));
  it('empty', () => expect(message('blockNumber', '')).toBe('invalid argument 0: empty hex string'));
  it('larger than int64', () => expect(message('blockNumber', '0x8000000000000000')).toBe('invalid argument 0: block number larger than int64'));
});

describe('block number or hash', () => {
  it('tag, number, 66-character hash', () => {
    expect(one('blockNumberOrHash', 'safe')).toEqual({ kind: 'tag', tag: 'safe' });
    expect(one('blockNumberOrHash', '0x2')).toEqual({ kind: 'number', number: 2n });
    expect(one('blockNumberOrHash', HASH)).toEqual({ kind: 'hash', hash: HASH, requireCanonical: false });
  });
  it('EIP-1898 objects', () => {
    expect(one('blockNumberOrHash', { blockHash: HASH, requireCanonical: true })).toEqual({ kind: 'hash', hash: HASH, requireCanonical: true });
    expect(one('blockNumberOrHash', { blockNumber: '0x3' })).toEqual({ kind: 'number', number: 3n });
  });
  it('both members', () =>
    expect(message('blockNumberOrHash', { blockHash: HASH, blockNumber: '0x1' })).toBe('invalid argument 0: cannot specify both BlockHash and BlockNumber, choose one or the other'));
  it('neither member', () => expect(message('blockNumberOrHash', {})).toBe('invalid argument 0: types BlockHash and BlockNumber cannot be both nil'));
  it('an error inside the object surfaces as the string fallback', () =>
    expect(message('blockNumberOrHash', { blockNumber: '1' })).toBe('invalid argument 0: json: cannot unmarshal object into Go value of type string'));
  it('a JSON number', () => expect(message('blockNumberOrHash', 1)).toBe('invalid argument 0: json: cannot unmarshal number into Go value of type string'));
  it('too high', () => expect(message('blockNumberOrHash', '0x8000000000000000')).toBe('invalid argument 0: blocknumber too high'));
});

describe('TransactionArgs', () => {
  it('decodes every field; data kept apart from input', () => {
    expect(
      one('transactionArgs', {
        from: ADDRESS, to: ADDRESS, gas: '0x5208', gasPrice: '0x1', value: '0x0', nonce: '0x2', data: '0xaa', chainId: '0x2328',
        accessList: [{ address: ADDRESS, storageKeys: [HASH] }],
      }),
    ).toEqual({
      from: ADDRESS, to: ADDRESS, gas: 21000n, gasPrice: 1n, value: 0n, nonce: 2n, data: '0xaa', chainId: 9000n,
      accessList: [{ address: ADDRESS, storageKeys: [HASH] }],
    });
  });
  it('field errors name the struct field', () =>
    expect(message('transactionArgs', { gas: '0x01' })).toBe(
      'invalid argument 0: json: cannot unmarshal hex number with leading zero digits into Go struct field TransactionArgs.gas of type hexutil.Uint64',
    ));
  it('a big field', () =>
    expect(message('transactionArgs', { maxFeePerGas: 1 })).toBe('invalid argument 0: json: cannot unmarshal non-string into Go struct field TransactionArgs.maxFeePerGas of type *hexutil.Big'));
  it('an address field of the wrong length', () =>
    expect(message('transactionArgs', { to: '0x12' })).toBe('invalid argument 0: hex string has length 2, want 40 for common.Address'));
  it('not an object', () => expect(message('transactionArgs', 'x')).toBe('invalid argument 0: json: cannot unmarshal string into Go value of type types.TransactionArgs'));
  it('null fields are absent; field names match case-insensitively as in Go', () =>
    expect(one('transactionArgs', { to: null, GAS: '0x1' })).toEqual({ gas: 1n }));
});

describe('filter criteria', () => {
  it('address string or array, topics with nulls and alternatives', () => {
    expect(
      one('filterCriteria', { fromBlock: '0x1', toBlock: 'latest', address: ADDRESS, topics: [HASH, null, [HASH, HASH], [HASH, null]] }),
    ).toEqual({
      fromBlock: { kind: 'number', number: 1n },
      toBlock: { kind: 'tag', tag: 'latest' },
      address: [ADDRESS],
      topics: [[HASH], null, [HASH, HASH], null],
    });
    expect(one('filterCriteria', { address: [ADDRESS, ADDRESS] })).toEqual({ address: [ADDRESS, ADDRESS] });
  });
  it('blockHash excludes from/to', () =>
    expect(message('filterCriteria', { blockHash: HASH, fromBlock: '0x1' })).toBe('invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other'));
  it('a bad address', () => expect(message('filterCriteria', { address: '0xabc' })).toBe('invalid argument 0: invalid address: hex string of odd length'));
  it('a short address', () =>
    expect(message('filterCriteria', { address: '0x' + 'ab'.repeat(19) })).toBe('invalid argument 0: invalid address: hex has invalid length 19 after decoding; expected 20 for address'));
  it('a bad address in a list', () =>
    expect(message('filterCriteria', { address: [ADDRESS, '0xzz'] })).toBe('invalid argument 0: invalid address at index 1: invalid hex string'));
  it('a non-string address in a list', () => expect(message('filterCriteria', { address: [1] })).toBe('invalid argument 0: non-string address at index 0'));
  it('addresses of another type', () => expect(message('filterCriteria', { address: 1 })).toBe('invalid argument 0: invalid addresses in query'));
  it('a short topic', () =>
    expect(message('filterCriteria', { topics: ['0x' + 'ab'.repeat(20)] })).toBe('invalid argument 0: hex has invalid length 20 after decoding; expected 32 for topic'));
  it('a topic of another type', () => expect(message('filterCriteria', { topics: [1] })).toBe('invalid argument 0: invalid topic(s)'));
  it('topics not an array', () =>
    expect(message('filterCriteria', { topics: 'x' })).toBe('invalid argument 0: json: cannot unmarshal string into Go struct field input.topics of type []interface {}'));
  it('a bad block number', () => expect(message('filterCriteria', { fromBlock: '1' })).toBe('invalid argument 0: hex string without 0x prefix'));
});

describe('trace config', () => {
  it('decodes the options', () =>
    expect(one('traceConfig', { tracer: 'callTracer', tracerConfig: { onlyTopCall: true }, disableStorage: true })).toEqual({
      tracer: 'callTracer',
      tracerConfig: { onlyTopCall: true },
      disableStorage: true,
    }));
  it('field types', () =>
    expect(message('traceConfig', { tracer: 1 })).toBe('invalid argument 0: json: cannot unmarshal number into Go struct field TraceConfig.tracer of type string'));
});

describe('plain Go types', () => {
  it('bool', () => expect(message('bool', 'true')).toBe('invalid argument 0: json: cannot unmarshal string into Go value of type bool'));
  it('rpc.ID', () => expect(message('id', 1)).toBe('invalid argument 0: json: cannot unmarshal number into Go value of type rpc.ID'));
  it('int', () => expect(message('int', 1.5)).toBe('invalid argument 0: json: cannot unmarshal number 1.5 into Go value of type int'));
  it('[]float64', () => expect(message('floats', ['a'])).toBe('invalid argument 0: json: cannot unmarshal string into Go value of type float64'));
});
