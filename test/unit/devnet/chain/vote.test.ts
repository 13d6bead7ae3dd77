import { commitHash } from '../../../../src/devnet/chain/hashing';
import { addressOf, keyFromSeed, sign, verify } from '../../../../src/devnet/chain/keys';
import { sha256 } from '../../../../src/devnet/chain/merkle';
import { precommitSignBytes, signCommit, voteSignBytes } from '../../../../src/devnet/chain/vote';
import { BlockId } from '../../../../src/devnet/chain/types';
import { CHAIN_ID, GO_ZERO_TIME, hex, makeChain, SEED, timestampOf, toHex, utf8, ZERO_BLOCK_ID } from './fixtures';

// Go's zero time as a Timestamp field: 2a 0b 08 80 92 b8 c3 98 fe ff ff ff 01
const ZERO_TIME_FIELD = '2a0b088092b8c398feffffff01';
const HEIGHT_1_ROUND_1 = '11' + '0100000000000000' + '19' + '0100000000000000';

describe('vote sign bytes (types/vote_test.go TestVoteSignBytesTestVectors)', () => {
  test.each([
    ['empty vote', 0, '', 0n, 0, '0d' + ZERO_TIME_FIELD],
    ['precommit h1 r1', 2, '', 1n, 1, '21' + '0802' + HEIGHT_1_ROUND_1 + ZERO_TIME_FIELD],
    ['prevote h1 r1', 1, '', 1n, 1, '21' + '0801' + HEIGHT_1_ROUND_1 + ZERO_TIME_FIELD],
    ['no type', 0, '', 1n, 1, '1f' + HEIGHT_1_ROUND_1 + ZERO_TIME_FIELD],
    ['chain id', 0, 'test_chain_id', 1n, 1, '2e' + HEIGHT_1_ROUND_1 + ZERO_TIME_FIELD + '320d' + toHex(utf8('test_chain_id'))],
  ])('%s', (_name, type, chainId, height, round, expected) => {
    expect(toHex(voteSignBytes(type, chainId, height, round, ZERO_BLOCK_ID, GO_ZERO_TIME))).toBe(expected);
  });

  test('precommitSignBytes is the PRECOMMIT vote', () => {
    expect(toHex(precommitSignBytes('', 1n, 1, ZERO_BLOCK_ID, GO_ZERO_TIME))).toBe('21' + '0802' + HEIGHT_1_ROUND_1 + ZERO_TIME_FIELD);
  });

  // the example precommit of types/vote_test.go, with its CanonicalBlockID written out field by field
  test('a vote for a block carries the CanonicalBlockID', () => {
    const blockId: BlockId = {
      hash: sha256(utf8('blockID_hash')),
      partSetHeader: { total: 1000000, hash: sha256(utf8('blockID_part_set_header_hash')) },
    };
    const ts = timestampOf('2017-12-25T03:00:01Z', 234000000);
    const body =
      '0802' +
      '11' + '3930000000000000' + // height 12345, sfixed64
      '19' + '0200000000000000' + // round 2, sfixed64
      '224a' + '0a20' + toHex(blockId.hash) + '1226' + '08c0843d' + '1220' + toHex(blockId.partSetHeader.hash) +
      '2a0b' + '08b1d381d205' + '10809dca6f' +
      '320d' + toHex(utf8('test_chain_id'));
    const expected = (body.length / 2).toString(16).padStart(2, '0') + body;
    expect(toHex(precommitSignBytes('test_chain_id', 12345n, 2, blockId, ts))).toBe(expected);
  });
});

describe('ed25519 keys', () => {
  // RFC 8032 section 7.1, TEST 1
  test('key from seed and signature match RFC 8032', () => {
    const key = keyFromSeed(SEED);
    expect(toHex(key.pubKey)).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    expect(toHex(key.privKey)).toBe(toHex(SEED) + toHex(key.pubKey));
    const sig = sign(key, new Uint8Array(0));
    expect(toHex(sig)).toBe(
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    );
    expect(verify(key.pubKey, new Uint8Array(0), sig)).toBe(true);
  });

  test('address is the first 20 bytes of sha256(pubkey)', () => {
    const key = keyFromSeed(SEED);
    expect(addressOf(key.pubKey)).toEqual(sha256(key.pubKey).subarray(0, 20));
    expect(addressOf(key.pubKey)).toHaveLength(20);
  });

  test('verify rejects malformed input instead of throwing', () => {
    const key = keyFromSeed(SEED);
    expect(verify(key.pubKey, utf8('m'), new Uint8Array(63))).toBe(false);
    expect(verify(new Uint8Array(31), utf8('m'), new Uint8Array(64))).toBe(false);
  });
});

describe('signed commit', () => {
  test('carries one BlockIDFlagCommit signature that verifies over the canonical precommit', () => {
    const { key, id2, commit2 } = makeChain();
    expect(commit2.height).toBe(2n);
    expect(commit2.round).toBe(0);
    expect(commit2.blockId).toEqual(id2);
    expect(commit2.signatures).toHaveLength(1);
    const sig = commit2.signatures[0];
    expect(sig.blockIdFlag).toBe(2);
    expect(sig.validatorAddress).toEqual(key.address);
    expect(sig.signature).toHaveLength(64);
    const signBytes = precommitSignBytes(CHAIN_ID, commit2.height, commit2.round, commit2.blockId, sig.timestamp);
    expect(verify(key.pubKey, signBytes, sig.signature)).toBe(true);
  });

  test('verification fails when any signed byte or the signature changes', () => {
    const { key, commit2 } = makeChain();
    const sig = commit2.signatures[0];
    const signBytes = precommitSignBytes(CHAIN_ID, commit2.height, commit2.round, commit2.blockId, sig.timestamp);
    for (let i = 0; i < signBytes.length; i++) {
      const changed = Uint8Array.from(signBytes);
      changed[i] ^= 0x01;
      expect(verify(key.pubKey, changed, sig.signature)).toBe(false);
    }
    const badSig = Uint8Array.from(sig.signature);
    badSig[10] ^= 0x80;
    expect(verify(key.pubKey, signBytes, badSig)).toBe(false);
    const other = keyFromSeed(hex('01'.repeat(32)));
    expect(verify(other.pubKey, signBytes, sig.signature)).toBe(false);
    const wrongChain = precommitSignBytes('other-chain', commit2.height, commit2.round, commit2.blockId, sig.timestamp);
    expect(verify(key.pubKey, wrongChain, sig.signature)).toBe(false);
  });

  test('is deterministic (ed25519) and feeds the next header', () => {
    const a = makeChain();
    const b = makeChain();
    expect(a.commit2).toEqual(b.commit2);
    const again = signCommit(a.key, CHAIN_ID, 1n, 0, a.id1, a.commit1.signatures[0].timestamp);
    expect(commitHash(again)).toEqual(a.block2.header.lastCommitHash);
  });
});
