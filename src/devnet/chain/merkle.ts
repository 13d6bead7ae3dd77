/**
 * CometBFT's simple merkle tree (crypto/merkle): RFC-6962 leaf/inner prefixes, split at the largest
 * power of two below the item count, sha256 of nothing for an empty tree.
 */
import { createHash } from 'crypto';

export interface MerkleProof {
  total: bigint;
  index: bigint;
  leafHash: Uint8Array;
  /** Sibling hashes from the leaf's sibling up to the root's child. */
  aunts: Uint8Array[];
}

export function sha256(...chunks: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return new Uint8Array(h.digest());
}

const LEAF_PREFIX = Uint8Array.of(0);
const INNER_PREFIX = Uint8Array.of(1);

export function leafHash(leaf: Uint8Array): Uint8Array {
  return sha256(LEAF_PREFIX, leaf);
}

export function innerHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(INNER_PREFIX, left, right);
}

/** Largest power of two strictly below `n` (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export function merkleRoot(items: Uint8Array[]): Uint8Array {
  switch (items.length) {
    case 0:
      return sha256();
    case 1:
      return leafHash(items[0]);
    default: {
      const k = splitPoint(items.length);
      return innerHash(merkleRoot(items.slice(0, k)), merkleRoot(items.slice(k)));
    }
  }
}

/** Inclusion proof of `items[index]`, shaped as CometBFT's merkle.Proof. */
export function merkleProof(items: Uint8Array[], index: number): MerkleProof {
  if (!Number.isInteger(index) || index < 0 || index >= items.length) {
    throw new RangeError(`index ${index} out of range for ${items.length} items`);
  }
  const aunts: Uint8Array[] = [];
  const walk = (slice: Uint8Array[], i: number): Uint8Array => {
    if (slice.length === 1) return leafHash(slice[0]);
    const k = splitPoint(slice.length);
    if (i < k) {
      const left = walk(slice.slice(0, k), i);
      const right = merkleRoot(slice.slice(k));
      aunts.push(right);
      return innerHash(left, right);
    }
    const left = merkleRoot(slice.slice(0, k));
    const right = walk(slice.slice(k), i - k);
    aunts.push(left);
    return innerHash(left, right);
  };
  walk(items, index);
  return {
    total: BigInt(items.length),
    index: BigInt(index),
    leafHash: leafHash(items[index]),
    aunts,
  };
}

/** Root implied by a proof, or undefined when the aunt count does not fit index/total. */
function rootFromAunts(index: bigint, total: bigint, leaf: Uint8Array, aunts: Uint8Array[]): Uint8Array | undefined {
  if (index < 0n || total <= 0n || index >= total) return undefined;
  if (total === 1n) return aunts.length === 0 ? leaf : undefined;
  if (aunts.length === 0) return undefined;
  const k = BigInt(splitPoint(Number(total)));
  const rest = aunts.slice(0, -1);
  const top = aunts[aunts.length - 1];
  if (index < k) {
    const left = rootFromAunts(index, k, leaf, rest);
    return left && innerHash(left, top);
  }
  const right = rootFromAunts(index - k, total - k, leaf, rest);
  return right && innerHash(top, right);
}

/** True when `proof` shows that `leaf` is in the tree with root `root` (as merkle.Proof.Verify). */
export function verifyMerkleProof(proof: MerkleProof, root: Uint8Array, leaf: Uint8Array): boolean {
  const expectedLeaf = leafHash(leaf);
  if (!bytesEqual(proof.leafHash, expectedLeaf)) return false;
  const computed = rootFromAunts(proof.index, proof.total, expectedLeaf, proof.aunts);
  return computed !== undefined && bytesEqual(computed, root);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
