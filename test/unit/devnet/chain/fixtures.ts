/** A small deterministic devnet chain used by the chain tests. */
import { blockIdOf, commitHash, consensusParamsHash, dataHash, evidenceHash, lastResultsHash, validatorsHash } from '../../../../src/devnet/chain/hashing';
import { addressOf, keyFromSeed, ValidatorKey } from '../../../../src/devnet/chain/keys';
import { Block, BlockId, Commit, ConsensusParams, Timestamp, Validator } from '../../../../src/devnet/chain/types';
import { signCommit } from '../../../../src/devnet/chain/vote';

export const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));
export const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
export const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));

/** Go's zero time.Time as a protobuf Timestamp. */
export const GO_ZERO_TIME: Timestamp = { seconds: -62135596800n, nanos: 0 };

export const ZERO_BLOCK_ID: BlockId = { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } };

export function timestampOf(iso: string, nanos = 0): Timestamp {
  return { seconds: BigInt(Date.parse(iso) / 1000), nanos };
}

/** RFC 8032 section 7.1, TEST 1 seed. */
export const SEED = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');

export function validatorKey(): ValidatorKey {
  const key = keyFromSeed(SEED);
  return { ...key, address: addressOf(key.pubKey) };
}

export const CHAIN_ID = 'devnet-1';

export const PARAMS: ConsensusParams = {
  block: { maxBytes: 22020096n, maxGas: -1n },
  evidence: { maxAgeNumBlocks: 100000n, maxAgeDurationNs: 172800000000000n, maxBytes: 1048576n },
  validator: { pubKeyTypes: ['ed25519'] },
  version: { app: 0n },
  abci: { voteExtensionsEnableHeight: 0n },
};

export function validatorSet(key: ValidatorKey): Validator[] {
  return [{ address: key.address, pubKey: key.pubKey, votingPower: 10n, proposerPriority: 0n }];
}

/** Builds the block at `height` on top of `prev` (undefined for the first block), as the devnet would. */
export function makeBlock(
  key: ValidatorKey,
  height: bigint,
  txs: Uint8Array[],
  time: Timestamp,
  prev?: { blockId: BlockId; commit: Commit },
): Block {
  const lastCommit: Commit = prev?.commit ?? { height: 0n, round: 0, blockId: ZERO_BLOCK_ID, signatures: [] };
  const vals = validatorSet(key);
  return {
    header: {
      version: { block: 11n, app: 0n },
      chainId: CHAIN_ID,
      height,
      time,
      lastBlockId: prev?.blockId ?? ZERO_BLOCK_ID,
      lastCommitHash: commitHash(lastCommit),
      dataHash: dataHash(txs),
      validatorsHash: validatorsHash(vals),
      nextValidatorsHash: validatorsHash(vals),
      consensusHash: consensusParamsHash(PARAMS),
      appHash: new Uint8Array(8),
      lastResultsHash: lastResultsHash([]),
      evidenceHash: evidenceHash(),
      proposerAddress: key.address,
    },
    txs,
    evidence: [],
    lastCommit,
  };
}

/** Blocks 1 and 2 plus the commit for block 2. */
export function makeChain() {
  const key = validatorKey();
  const block1 = makeBlock(key, 1n, [], timestampOf('2024-01-02T03:04:05Z', 123456789));
  const id1 = blockIdOf(block1);
  const commit1 = signCommit(key, CHAIN_ID, 1n, 0, id1, timestampOf('2024-01-02T03:04:06Z', 500000000));
  const block2 = makeBlock(key, 2n, [utf8('tx-a'), utf8('tx-b'), utf8('tx-c')], timestampOf('2024-01-02T03:04:06Z', 600000000), {
    blockId: id1,
    commit: commit1,
  });
  const id2 = blockIdOf(block2);
  const commit2 = signCommit(key, CHAIN_ID, 2n, 0, id2, timestampOf('2024-01-02T03:04:07Z'));
  return { key, block1, id1, commit1, block2, id2, commit2 };
}
