import { appHashOf } from '../../../src/devnet/app/kvstore/kvstore-app';
import { isKeyValueTx, keyValueOf, normalizeKeyValueTx, parseValidatorTx } from '../../../src/devnet/app/kvstore/kvstore-txs';
import { generateValidatorKey } from '../../../src/devnet/chain/keys';
import { decodeValue, encodeValue } from '../../../src/devnet/store/codec';
import { withinBounds } from '../../../src/devnet/indexer/numeric-bounds';
import { planQuery } from '../../../src/devnet/indexer/query-plan';
import { applyValidatorUpdates, incrementProposerPriority, newValidatorSet } from '../../../src/devnet/producer/validator-set';
import { parseQuery } from '../../../src/events';
import { decodeGoHex } from '../../../src/devnet/bytes';
import { bytes } from '../embedded/harness';

const text = (b: Uint8Array): string => Buffer.from(b).toString();

describe('kvstore tx formats', () => {
  it('accepts exactly one separator, not at either end', () => {
    for (const ok of ['k=v', 'k:v', 'a b=c d']) expect(isKeyValueTx(bytes(ok))).toBe(true);
    for (const bad of ['', 'kv', '=v', 'k=', ':v', 'k:', 'a=b=c', 'a:b:c', 'a=b:c']) expect(isKeyValueTx(bytes(bad))).toBe(false);
    expect(text(normalizeKeyValueTx(bytes('k:v')))).toBe('k=v');
    expect(keyValueOf(bytes('k=v'))).toEqual({ key: bytes('k'), value: bytes('v') });
    expect(text(keyValueOf(bytes('val=ed25519!AA==!1')).key)).toBe('val=ed25519!AA==!1');
  });

  it('parses validator txs with the kvstore error texts', () => {
    const key = generateValidatorKey();
    const pub = Buffer.from(key.pubKey).toString('base64');
    expect(parseValidatorTx(bytes(`val=ed25519!${pub}!+7`))).toEqual({ keyType: 'ed25519', pubKey: key.pubKey, power: 7n });
    expect(parseValidatorTx(bytes(`val=${pub}!7`))).toBe(`expected 'pubkeytype!pubkey!power'. Got [${pub} 7]`);
    expect(parseValidatorTx(bytes('val=ed25519!%%%!7'))).toBe('pubkey (%%%) is invalid base64');
    expect(parseValidatorTx(bytes(`val=ed25519!${pub}!seven`))).toBe('power (seven) is not an int');
    expect(parseValidatorTx(bytes(`val=ed25519!${pub}!-1`))).toBe('power can not be less than 0, got -1');
  });

  it('hashes the app state as the kvstore does: PutVarint(size) in 8 bytes', () => {
    expect(Buffer.from(appHashOf(0n)).toString('hex')).toBe('0000000000000000');
    expect(Buffer.from(appHashOf(1n)).toString('hex')).toBe('0200000000000000');
    expect(Buffer.from(appHashOf(64n)).toString('hex')).toBe('8001000000000000');
    expect(Buffer.from(appHashOf(300n)).toString('hex')).toBe('d804000000000000');
  });
});

describe('validator set arithmetic', () => {
  it('rotates priorities as CometBFT does', () => {
    const a = generateValidatorKey();
    const b = generateValidatorKey();
    const genesis = newValidatorSet([{ keyType: 'ed25519', pubKey: a.pubKey, power: 10n }]);
    expect(genesis.validators[0].proposerPriority).toBe(0n);
    const joined = incrementProposerPriority(applyValidatorUpdates(genesis, [{ keyType: 'ed25519', pubKey: b.pubKey, power: 5n }]), 1);
    expect(joined.validators.map((v) => [v.votingPower, v.proposerPriority])).toEqual([
      [10n, 3n],
      [5n, -3n],
    ]);
    expect(Buffer.from(joined.proposer).equals(a.address)).toBe(true);
    const again = incrementProposerPriority(joined, 1);
    expect(again.validators.map((v) => v.proposerPriority)).toEqual([-2n, 2n]);
    const left = applyValidatorUpdates(again, [{ keyType: 'ed25519', pubKey: b.pubKey, power: 0n }]);
    expect(left.validators).toHaveLength(1);
  });
});

describe('index query planning', () => {
  it('turns height conditions into a filter as dedupHeight does', () => {
    expect(planQuery(parseQuery("tx.height = '5' AND app.key = 'x'"), 'tx.height').heights).toEqual({ eq: 5n });
    expect(planQuery(parseQuery('tx.height = 5.9'), 'tx.height').heights).toEqual({ eq: 5n });
    const ranged = planQuery(parseQuery('tx.height = 5 AND tx.height > 3'), 'tx.height');
    expect(ranged.heights.eq).toBeUndefined();
    expect(ranged.heights.range).toEqual({ lower: { kind: 'number', value: '3' }, includeLower: false, includeUpper: false });
    expect(planQuery(parseQuery('a.b > 1 AND a.b < 3'), 'tx.height').matchers).toHaveLength(1);
  });

  it('compares whole numbers only in ranges', () => {
    const bounds = { lower: { kind: 'number' as const, value: '1.5' }, includeLower: true, includeUpper: false };
    expect(withinBounds(bounds, '1.5')).toBe(true);
    expect(withinBounds(bounds, '2e3')).toBe(true);
    expect(withinBounds(bounds, '-7')).toBe(false);
    expect(withinBounds(bounds, '8atom')).toBe(false);
    expect(withinBounds({ ...bounds, lower: { kind: 'date', value: '2020-01-01' } }, '5')).toBe(false);
  });
});

describe('store codec and Go hex', () => {
  it('round-trips bigints and bytes', () => {
    const value = { n: -5n, b: new Uint8Array([1, 2, 3]), buf: Buffer.from('hi'), nested: [{ x: 1n }] };
    expect(decodeValue(encodeValue(value))).toEqual({ n: -5n, b: new Uint8Array([1, 2, 3]), buf: new Uint8Array(Buffer.from('hi')), nested: [{ x: 1n }] });
  });

  it('decodes hex with Go errors', () => {
    expect(decodeGoHex('0aFF')).toEqual(new Uint8Array([10, 255]));
    expect(decodeGoHex('abc')).toEqual({ error: 'encoding/hex: odd length hex string' });
    expect(decodeGoHex('zz')).toEqual({ error: "encoding/hex: invalid byte: U+007A 'z'" });
  });
});
