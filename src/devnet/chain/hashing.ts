/**
 * Hashes and protobuf encodings of the chain model, byte-for-byte as CometBFT v0.38 computes them
 * (types/block.go, tx.go, validator_set.go, params.go, results.go, part_set.go).
 *
 * The model's interfaces have the same field names as the cosmjs-types messages, so they are handed to
 * the encoders as they are. Every sub-message the model carries is always present, which is what
 * gogoproto does for CometBFT's non-nullable fields (e.g. an empty PartSetHeader still encodes as
 * `12 00` inside a BlockID).
 */
import { BinaryWriter } from 'cosmjs-types/binary';
import { ExecTxResult as ExecTxResultProto } from 'cosmjs-types/tendermint/abci/types';
import { Block as BlockProto } from 'cosmjs-types/tendermint/types/block';
import { HashedParams } from 'cosmjs-types/tendermint/types/params';
import { BlockID, CommitSig } from 'cosmjs-types/tendermint/types/types';
import { SimpleValidator } from 'cosmjs-types/tendermint/types/validator';
import { Consensus } from 'cosmjs-types/tendermint/version/types';
import { Timestamp as TimestampProto } from 'cosmjs-types/google/protobuf/timestamp';
import { MerkleProof, merkleProof, merkleRoot, sha256 } from './merkle';
import { Block, BlockId, Commit, ConsensusParams, ExecTxResult, Header, PartSetHeader, Validator } from './types';

/** types.BlockPartSizeBytes. */
export const BLOCK_PART_SIZE_BYTES = 65536;

/** TxProof as the `tx` RPC returns it with prove=true. */
export interface TxProof {
  rootHash: Uint8Array;
  data: Uint8Array;
  proof: MerkleProof;
}

// cdcEncode: the value wrapped in google.protobuf.{String,Int64,Bytes}Value; zero values encode to nothing.
function wrapString(value: string): Uint8Array {
  return value === '' ? new Uint8Array(0) : BinaryWriter.create().uint32(10).string(value).finish();
}

function wrapInt64(value: bigint): Uint8Array {
  return value === 0n ? new Uint8Array(0) : BinaryWriter.create().uint32(8).int64(value).finish();
}

function wrapBytes(value: Uint8Array): Uint8Array {
  return value.length === 0 ? new Uint8Array(0) : BinaryWriter.create().uint32(10).bytes(value).finish();
}

/** Header.Hash(). Empty when the header has no validators hash, as CometBFT returns nil then. */
export function headerHash(h: Header): Uint8Array {
  if (h.validatorsHash.length === 0) return new Uint8Array(0);
  return merkleRoot([
    Consensus.encode(h.version).finish(),
    wrapString(h.chainId),
    wrapInt64(h.height),
    TimestampProto.encode(h.time).finish(),
    BlockID.encode(h.lastBlockId).finish(),
    wrapBytes(h.lastCommitHash),
    wrapBytes(h.dataHash),
    wrapBytes(h.validatorsHash),
    wrapBytes(h.nextValidatorsHash),
    wrapBytes(h.consensusHash),
    wrapBytes(h.appHash),
    wrapBytes(h.lastResultsHash),
    wrapBytes(h.evidenceHash),
    wrapBytes(h.proposerAddress),
  ]);
}

/** Commit.Hash(): merkle root of the protobuf-encoded CommitSigs. */
export function commitHash(c: Commit): Uint8Array {
  return merkleRoot(c.signatures.map((s) => CommitSig.encode(s).finish()));
}

export function txHash(tx: Uint8Array): Uint8Array {
  return sha256(tx);
}

/** Data.Hash(): merkle root of the tx hashes (not of the txs). */
export function dataHash(txs: Uint8Array[]): Uint8Array {
  return merkleRoot(txs.map(txHash));
}

export function txProof(txs: Uint8Array[], index: number): TxProof {
  const hashes = txs.map(txHash);
  return { rootHash: merkleRoot(hashes), data: txs[index], proof: merkleProof(hashes, index) };
}

/**
 * ValidatorSet.Hash(): merkle root of SimpleValidator{pub_key, voting_power} in validator-set order
 * (voting power descending, then address ascending), which is applied here.
 */
export function validatorsHash(vals: Validator[]): Uint8Array {
  const ordered = [...vals].sort(
    (a, b) => (a.votingPower === b.votingPower ? Buffer.compare(a.address, b.address) : a.votingPower > b.votingPower ? -1 : 1),
  );
  return merkleRoot(
    ordered.map((v) => SimpleValidator.encode({ pubKey: { ed25519: v.pubKey }, votingPower: v.votingPower }).finish()),
  );
}

/** ConsensusParams.Hash(): sha256 of HashedParams; only block.max_bytes and block.max_gas count. */
export function consensusParamsHash(p: ConsensusParams): Uint8Array {
  return sha256(HashedParams.encode({ blockMaxBytes: p.block.maxBytes, blockMaxGas: p.block.maxGas }).finish());
}

/** ABCIResults.Hash(): only code, data, gas_wanted and gas_used are deterministic and hashed. */
export function lastResultsHash(results: ExecTxResult[]): Uint8Array {
  return merkleRoot(
    results.map((r) =>
      ExecTxResultProto.encode(
        ExecTxResultProto.fromPartial({ code: r.code, data: r.data, gasWanted: r.gasWanted, gasUsed: r.gasUsed }),
      ).finish(),
    ),
  );
}

/** EvidenceList.Hash() of the empty list the devnet always has. */
export function evidenceHash(): Uint8Array {
  return merkleRoot([]);
}

/** The block's protobuf encoding (tendermint.types.Block), the bytes that are split into parts. */
export function encodeBlock(block: Block): Uint8Array {
  return BlockProto.encode({
    header: block.header,
    data: { txs: block.txs },
    evidence: { evidence: [] },
    lastCommit: block.lastCommit,
  }).finish();
}

/** Block.MakePartSet(BlockPartSizeBytes). */
export function makePartSet(block: Block): { header: PartSetHeader; parts: Uint8Array[] } {
  const bytes = encodeBlock(block);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += BLOCK_PART_SIZE_BYTES) {
    parts.push(bytes.subarray(i, i + BLOCK_PART_SIZE_BYTES));
  }
  return { header: { total: parts.length, hash: merkleRoot(parts) }, parts };
}

/** The BlockID a commit for `block` signs: header hash plus part-set header. */
export function blockIdOf(block: Block): BlockId {
  return { hash: headerHash(block.header), partSetHeader: makePartSet(block).header };
}
