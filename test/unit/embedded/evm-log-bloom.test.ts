/** eth_getLogs's bloom test: the filter's bloom bits, found once per query, against a block's bloom. */
import { Bloom } from '@ethereumjs/vm';
import { LogMatcher } from '../../../src/backends/embedded/evm-query/log-query';
import { fromHex } from '../../../src/devnet/app/evm/hex';

const address = (n: number): string => '0x' + n.toString(16).padStart(40, '0');
const topic = (n: number): string => '0x' + n.toString(16).padStart(64, '0');

describe('eth_getLogs bloom test', () => {
  const bloom = new Bloom();
  bloom.add(fromHex(address(1)));
  bloom.add(fromHex(topic(7)));
  const bits = bloom.bitvector;
  // The values used below that the bloom does not hold must not collide with it.
  const absent = [address(2), address(3), topic(8)].filter((v) => bloom.check(fromHex(v)));

  it('passes a block whose bloom may hold a listed address and a topic at each position', () => {
    expect(absent).toEqual([]);
    expect(new LogMatcher({}).mayMatch(bits)).toBe(true);
    expect(new LogMatcher({ address: [address(1)] }).mayMatch(bits)).toBe(true);
    expect(new LogMatcher({ address: [address(2), address(1)] }).mayMatch(bits)).toBe(true);
    expect(new LogMatcher({ address: [address(1)], topics: [null, [topic(8), topic(7)]] }).mayMatch(bits)).toBe(true);
    expect(new LogMatcher({ topics: [[], [topic(7)]] }).mayMatch(bits)).toBe(true);
  });

  it('rules out a block whose bloom holds none of the addresses, or no topic of a position', () => {
    expect(new LogMatcher({ address: [address(2), address(3)] }).mayMatch(bits)).toBe(false);
    expect(new LogMatcher({ address: [address(1)], topics: [[topic(8)]] }).mayMatch(bits)).toBe(false);
    expect(new LogMatcher({ topics: [[topic(7)], [topic(8)]] }).mayMatch(bits)).toBe(false);
  });

  it('takes many addresses', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => address(i + 2)).filter((a) => !bloom.check(fromHex(a)));
    expect(new LogMatcher({ address: many }).mayMatch(bits)).toBe(false);
    expect(new LogMatcher({ address: [...many, address(1)] }).mayMatch(bits)).toBe(true);
  });
});
