import { randomBytes } from 'crypto';
import { innerHash, leafHash, merkleProof, merkleRoot, verifyMerkleProof } from '../../../../src/devnet/chain/merkle';
import { toHex, utf8 } from './fixtures';

describe('merkle tree (CometBFT crypto/merkle)', () => {
  // crypto/merkle/rfc6962_test.go TestRFC6962Hasher
  test('RFC 6962 hasher vectors', () => {
    expect(toHex(merkleRoot([]))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(toHex(merkleRoot([new Uint8Array(0)]))).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    expect(toHex(leafHash(utf8('L123456')))).toBe('395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56');
    expect(toHex(innerHash(utf8('N123'), utf8('N456')))).toBe('aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb');
  });

  // crypto/merkle/tree_test.go TestHashFromByteSlices
  test.each([
    ['empty', [], 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['single', [[1, 2, 3]], '054edec1d0211f624fed0cbca9d4f9400b0e491c43742af2c5b0abebf0c990d8'],
    ['single blank', [[]], '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d'],
    ['two', [[1, 2, 3], [4, 5, 6]], '82e6cfce00453804379b53962939eaa7906b39904be0813fcadd31b100773c4b'],
    ['many', [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]], 'f326493eceab4f2d9ffbc78c59432a0a005d6ea98392045c74df5d14a113be18'],
  ])('root of %s', (_name, items, expected) => {
    expect(toHex(merkleRoot(items.map((i) => Uint8Array.from(i))))).toBe(expected);
  });

  test('aunts run from the leaf sibling up to the root child', () => {
    const items = [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]].map((i) => Uint8Array.from(i));
    const leaves = items.map(leafHash);
    // Split 5 = 4 + 1: item 2 is under ((0,1),(2,3)), so its aunts are leaf 3, node(0,1), then leaf 4.
    const proof = merkleProof(items, 2);
    expect(proof.total).toBe(5n);
    expect(proof.index).toBe(2n);
    expect(proof.leafHash).toEqual(leaves[2]);
    expect(proof.aunts).toEqual([leaves[3], innerHash(leaves[0], leaves[1]), leaves[4]]);
    expect(merkleProof(items, 4).aunts).toEqual([merkleRoot(items.slice(0, 4))]);
    expect(merkleProof(items.slice(0, 1), 0).aunts).toEqual([]);
  });

  // crypto/merkle/tree_test.go TestProof
  test('every proof of a 100-item tree verifies, and tampering fails', () => {
    const items = Array.from({ length: 100 }, () => new Uint8Array(randomBytes(32)));
    const root = merkleRoot(items);
    items.forEach((item, i) => {
      const proof = merkleProof(items, i);
      expect(proof.total).toBe(100n);
      expect(proof.index).toBe(BigInt(i));
      expect(verifyMerkleProof(proof, root, item)).toBe(true);

      expect(verifyMerkleProof({ ...proof, aunts: [...proof.aunts, new Uint8Array(32)] }, root, item)).toBe(false);
      expect(verifyMerkleProof({ ...proof, aunts: proof.aunts.slice(0, -1) }, root, item)).toBe(false);
      const mutated = Uint8Array.from(item);
      mutated[0] ^= 1;
      expect(verifyMerkleProof(proof, root, mutated)).toBe(false);
      const badRoot = Uint8Array.from(root);
      badRoot[31] ^= 1;
      expect(verifyMerkleProof(proof, badRoot, item)).toBe(false);
      expect(verifyMerkleProof({ ...proof, index: proof.index + 100n }, root, item)).toBe(false);
    });
  });

  test('proof sizes up to 33 items all verify', () => {
    for (let n = 1; n <= 33; n++) {
      const items = Array.from({ length: n }, (_, i) => Uint8Array.of(i));
      const root = merkleRoot(items);
      for (let i = 0; i < n; i++) expect(verifyMerkleProof(merkleProof(items, i), root, items[i])).toBe(true);
    }
  });

  test('an index outside the items is rejected', () => {
    expect(() => merkleProof([], 0)).toThrow(RangeError);
    expect(() => merkleProof([Uint8Array.of(1)], 1)).toThrow(RangeError);
  });
});
