/**
 * How the node state moves (state/state.go MakeGenesisState, state/execution.go updateState) and
 * how a block is assembled from it (State.MakeBlock).
 */
import type { FinalizeBlockResult } from '../app/application';
import { commitHash, consensusParamsHash, dataHash, evidenceHash, lastResultsHash, validatorsHash } from '../chain/hashing';
import type { Block, BlockId, Commit, Header, Timestamp } from '../chain/types';
import type { GenesisDoc } from '../genesis/genesis-doc';
import type { ChainState } from './chain-state';
import { zeroBlockId } from './commit-signer';
import { applyValidatorUpdates, incrementProposerPriority, newValidatorSet } from './validator-set';

/** version.BlockProtocol. */
export const BLOCK_PROTOCOL = 11n;

/** The state before the first block, once InitChain has given the app hash and Info the app version. */
export function genesisState(doc: GenesisDoc, appHash: Uint8Array, appVersion: bigint): ChainState {
  const validators = newValidatorSet(doc.validators.map((v) => ({ keyType: 'ed25519', pubKey: v.pubKey, power: v.power })));
  return {
    chainId: doc.chainId,
    initialHeight: doc.initialHeight,
    lastBlockHeight: 0n,
    lastBlockId: zeroBlockId(),
    lastBlockTime: doc.genesisTime,
    lastValidators: { validators: [], proposer: new Uint8Array(0) },
    validators,
    nextValidators: incrementProposerPriority(validators, 1),
    consensusParams: doc.consensusParams,
    lastResultsHash: new Uint8Array(0),
    appHash: appHash.length > 0 ? appHash : doc.appHash,
    appVersion,
  };
}

export function nextHeight(state: ChainState): bigint {
  return state.lastBlockHeight === 0n ? state.initialHeight : state.lastBlockHeight + 1n;
}

/**
 * The first block takes the genesis time; every later one the time of the last commit, which on the
 * devnet is its one validator's precommit.
 */
export function blockTime(state: ChainState, lastCommit: Commit): Timestamp {
  const signed = lastCommit.signatures.find((s) => s.blockIdFlag === 2);
  return nextHeight(state) === state.initialHeight || signed === undefined ? state.lastBlockTime : signed.timestamp;
}

export function makeBlock(state: ChainState, txs: Uint8Array[], lastCommit: Commit, proposer: Uint8Array): Block {
  const header: Header = {
    version: { block: BLOCK_PROTOCOL, app: state.appVersion },
    chainId: state.chainId,
    height: nextHeight(state),
    time: blockTime(state, lastCommit),
    lastBlockId: state.lastBlockId,
    lastCommitHash: commitHash(lastCommit),
    dataHash: dataHash(txs),
    validatorsHash: validatorsHash(state.validators.validators),
    nextValidatorsHash: validatorsHash(state.nextValidators.validators),
    consensusHash: consensusParamsHash(state.consensusParams),
    appHash: state.appHash,
    lastResultsHash: state.lastResultsHash,
    evidenceHash: evidenceHash(),
    proposerAddress: proposer,
  };
  return { header, txs, evidence: [], lastCommit };
}

/** updateState: validator updates of block H join the set of H+2. */
export function updateState(state: ChainState, blockId: BlockId, header: Header, results: FinalizeBlockResult): ChainState {
  return {
    ...state,
    lastBlockHeight: header.height,
    lastBlockId: blockId,
    lastBlockTime: header.time,
    lastValidators: state.validators,
    validators: state.nextValidators,
    nextValidators: incrementProposerPriority(applyValidatorUpdates(state.nextValidators, results.validatorUpdates), 1),
    lastResultsHash: lastResultsHash(results.txResults),
    appHash: results.appHash,
  };
}

/** types.MaxBlockSizeBytes: what block.max_bytes = -1 stands for. */
const MAX_BLOCK_SIZE_BYTES = 104857600;

/** types.MaxDataBytesNoEvidence: the room for txs once the header and a full commit are counted. */
export function maxDataBytes(state: ChainState): number {
  const maxBytes = state.consensusParams.block.maxBytes === -1n ? MAX_BLOCK_SIZE_BYTES : Number(state.consensusParams.block.maxBytes);
  // MaxOverheadForBlock, MaxHeaderBytes, then MaxCommitBytes: overhead plus one CommitSig per validator.
  return maxBytes - 11 - 626 - (94 + 109 * state.validators.validators.length);
}
