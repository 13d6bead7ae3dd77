/**
 * CometBFT's JSON for the chain model, as its libs/json (amino-compatible) writes it in genesis.json,
 * the node RPC's answers and a leader's answers to a follower:
 * int64/uint64 as decimal strings, int32/uint32 as numbers, HexBytes as upper-case hex ("" when empty),
 * []byte as base64 (null when empty), times as RFC3339Nano in UTC.
 */
import { TxProof } from './hashing';
import { BlockId, Block, Commit, ConsensusParams, Header, Timestamp, Validator } from './types';

/** `{hash:HEX, parts:{total:N, hash:HEX}}`; a zero BlockID is `{hash:"", parts:{total:0, hash:""}}`. */
export interface BlockIdJson {
  hash: string;
  parts: { total: number; hash: string };
}

/** `version.block`/`version.app` are left out when 0 (omitempty on the proto struct). */
export interface HeaderJson {
  version: { block?: string; app?: string };
  chain_id: string;
  height: string;
  time: string;
  last_block_id: BlockIdJson;
  last_commit_hash: string;
  data_hash: string;
  validators_hash: string;
  next_validators_hash: string;
  consensus_hash: string;
  app_hash: string;
  last_results_hash: string;
  evidence_hash: string;
  proposer_address: string;
}

/** `block_id_flag`: 1 absent, 2 commit, 3 nil. */
export interface CommitSigJson {
  block_id_flag: number;
  validator_address: string;
  timestamp: string;
  signature: string | null;
}

export interface CommitJson {
  height: string;
  round: number;
  block_id: BlockIdJson;
  signatures: CommitSigJson[];
}

export interface BlockJson {
  header: HeaderJson;
  data: { txs: string[] };
  evidence: { evidence: never[] };
  last_commit: CommitJson;
}

export interface PubKeyJson {
  type: 'tendermint/PubKeyEd25519';
  value: string;
}

export interface ValidatorJson {
  address: string;
  pub_key: PubKeyJson;
  voting_power: string;
  proposer_priority: string;
}

/** `max_age_duration` is the duration in nanoseconds. */
export interface ConsensusParamsJson {
  block: { max_bytes: string; max_gas: string };
  evidence: { max_age_num_blocks: string; max_age_duration: string; max_bytes: string };
  validator: { pub_key_types: string[] };
  version: { app: string };
  abci: { vote_extensions_enable_height: string };
}

/** The `proof` of a `tx` result with prove=true; `aunts` is `[]` (not absent) for a single tx. */
export interface TxProofJson {
  root_hash: string;
  data: string;
  proof: { total: string; index: string; leaf_hash: string; aunts: string[] };
}

export function hexJson(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').toUpperCase();
}

export function base64Json(bytes: Uint8Array): string | null {
  return bytes.length === 0 ? null : Buffer.from(bytes).toString('base64');
}

/**
 * Go's time.RFC3339Nano in UTC: fraction trimmed of trailing zeros and dropped when zero, e.g.
 * `2024-01-02T03:04:05.12Z`, `2024-01-02T03:04:05Z`; Go's zero time is `0001-01-01T00:00:00Z`.
 */
export function timestampJson(ts: Timestamp): string {
  const d = new Date(Number(ts.seconds) * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const fraction = ts.nanos === 0 ? '' : `.${pad(ts.nanos, 9).replace(/0+$/, '')}`;
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fraction}Z`
  );
}

export function blockIdJson(id: BlockId): BlockIdJson {
  return { hash: hexJson(id.hash), parts: { total: id.partSetHeader.total, hash: hexJson(id.partSetHeader.hash) } };
}

export function headerJson(h: Header): HeaderJson {
  const version: HeaderJson['version'] = {};
  if (h.version.block !== 0n) version.block = h.version.block.toString();
  if (h.version.app !== 0n) version.app = h.version.app.toString();
  return {
    version,
    chain_id: h.chainId,
    height: h.height.toString(),
    time: timestampJson(h.time),
    last_block_id: blockIdJson(h.lastBlockId),
    last_commit_hash: hexJson(h.lastCommitHash),
    data_hash: hexJson(h.dataHash),
    validators_hash: hexJson(h.validatorsHash),
    next_validators_hash: hexJson(h.nextValidatorsHash),
    consensus_hash: hexJson(h.consensusHash),
    app_hash: hexJson(h.appHash),
    last_results_hash: hexJson(h.lastResultsHash),
    evidence_hash: hexJson(h.evidenceHash),
    proposer_address: hexJson(h.proposerAddress),
  };
}

export function commitJson(c: Commit): CommitJson {
  return {
    height: c.height.toString(),
    round: c.round,
    block_id: blockIdJson(c.blockId),
    signatures: c.signatures.map((s) => ({
      block_id_flag: s.blockIdFlag,
      validator_address: hexJson(s.validatorAddress),
      timestamp: timestampJson(s.timestamp),
      signature: base64Json(s.signature),
    })),
  };
}

/** `data.txs` is `[]` when the block has no txs; evidence is always `{evidence:[]}` on the devnet. */
export function blockJson(b: Block): BlockJson {
  return {
    header: headerJson(b.header),
    data: { txs: b.txs.map((tx) => Buffer.from(tx).toString('base64')) },
    evidence: { evidence: [] },
    last_commit: commitJson(b.lastCommit),
  };
}

export function pubKeyJson(pubKey: Uint8Array): PubKeyJson {
  return { type: 'tendermint/PubKeyEd25519', value: Buffer.from(pubKey).toString('base64') };
}

export function validatorJson(v: Validator): ValidatorJson {
  return {
    address: hexJson(v.address),
    pub_key: pubKeyJson(v.pubKey),
    voting_power: v.votingPower.toString(),
    proposer_priority: v.proposerPriority.toString(),
  };
}

export function consensusParamsJson(p: ConsensusParams): ConsensusParamsJson {
  return {
    block: { max_bytes: p.block.maxBytes.toString(), max_gas: p.block.maxGas.toString() },
    evidence: {
      max_age_num_blocks: p.evidence.maxAgeNumBlocks.toString(),
      max_age_duration: p.evidence.maxAgeDurationNs.toString(),
      max_bytes: p.evidence.maxBytes.toString(),
    },
    validator: { pub_key_types: [...p.validator.pubKeyTypes] },
    version: { app: p.version.app.toString() },
    abci: { vote_extensions_enable_height: p.abci.voteExtensionsEnableHeight.toString() },
  };
}

export function txProofJson(p: TxProof): TxProofJson {
  return {
    root_hash: hexJson(p.rootHash),
    data: Buffer.from(p.data).toString('base64'),
    proof: {
      total: p.proof.total.toString(),
      index: p.proof.index.toString(),
      leaf_hash: Buffer.from(p.proof.leafHash).toString('base64'),
      aunts: p.proof.aunts.map((a) => Buffer.from(a).toString('base64')),
    },
  };
}
