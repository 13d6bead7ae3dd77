/**
 * The genesis document (types.GenesisDoc): created as `cometbft init` does, written and read as
 * `config/genesis.json`, and served by the genesis RPCs in CometBFT's key order.
 */
import { addressOf, ValidatorKey } from '../chain/keys';
import type { ConsensusParams, Timestamp } from '../chain/types';
import { consensusParamsJson, hexJson, pubKeyJson, timestampJson } from '../chain/wire';
import { asJson, type Json, type JsonObject } from '../json';
import { parseTimestamp } from '../time';

export interface GenesisValidator {
  address: Uint8Array;
  pubKey: Uint8Array;
  power: bigint;
  name: string;
}

export interface GenesisDoc {
  genesisTime: Timestamp;
  chainId: string;
  initialHeight: bigint;
  consensusParams: ConsensusParams;
  validators: GenesisValidator[];
  appHash: Uint8Array;
  /** Raw JSON, left out when absent. */
  appState?: Json;
}

/** types.DefaultConsensusParams() of v0.38. */
export function defaultConsensusParams(): ConsensusParams {
  return {
    block: { maxBytes: 22020096n, maxGas: -1n },
    evidence: { maxAgeNumBlocks: 100000n, maxAgeDurationNs: 172800000000000n, maxBytes: 1048576n },
    validator: { pubKeyTypes: ['ed25519'] },
    version: { app: 0n },
    abci: { voteExtensionsEnableHeight: 0n },
  };
}

/**
 * What `cometbft init` writes: one validator of power 10. `blockMaxGas` sets block.max_gas (an EVM
 * devnet limits the gas of a block; -1, the default, means no limit).
 */
export function newGenesisDoc(chainId: string, key: ValidatorKey, genesisTime: Timestamp, blockMaxGas = -1n): GenesisDoc {
  const consensusParams = defaultConsensusParams();
  consensusParams.block.maxGas = blockMaxGas;
  return {
    genesisTime,
    chainId,
    initialHeight: 1n,
    consensusParams,
    validators: [{ address: key.address, pubKey: key.pubKey, power: 10n, name: '' }],
    appHash: new Uint8Array(0),
  };
}

export function genesisDocJson(doc: GenesisDoc): JsonObject {
  const json: JsonObject = {
    genesis_time: timestampJson(doc.genesisTime),
    chain_id: doc.chainId,
    initial_height: doc.initialHeight.toString(),
    consensus_params: asJson(consensusParamsJson(doc.consensusParams)),
    validators: doc.validators.map((v) => ({
      address: hexJson(v.address),
      pub_key: asJson(pubKeyJson(v.pubKey)),
      power: v.power.toString(),
      name: v.name,
    })),
    app_hash: hexJson(doc.appHash),
  };
  if (doc.appState !== undefined) json.app_state = doc.appState;
  return json;
}

/** The file text CometBFT writes (MarshalIndent with two spaces). */
export function genesisFileText(doc: GenesisDoc): string {
  return JSON.stringify(genesisDocJson(doc), null, 2);
}

/** Reads a genesis.json as GenesisDocFromJSON + ValidateAndComplete would, with their defaults. */
export function parseGenesisDoc(text: string, source: string): GenesisDoc {
  const fail = (why: string): never => {
    throw new Error(`${source}: ${why}`);
  };
  const raw = JSON.parse(text) as Record<string, unknown>;
  const chainId = raw.chain_id;
  if (typeof chainId !== 'string' || chainId === '') fail('genesis doc must include non-empty chain_id');
  if ((chainId as string).length > 50) fail(`chain_id in genesis doc is too long (max: 50)`);
  const genesisTime = typeof raw.genesis_time === 'string' ? parseTimestamp(raw.genesis_time) : undefined;
  if (genesisTime === undefined) fail('genesis_time must be an RFC 3339 time');
  const initialHeight = raw.initial_height === undefined ? 1n : BigInt(String(raw.initial_height));
  if (initialHeight < 0n) fail(`initial_height cannot be negative (got ${initialHeight})`);
  const validators = ((raw.validators as unknown[] | undefined) ?? []).map((entry, i) => parseValidator(entry, i, fail));
  return {
    genesisTime: genesisTime as Timestamp,
    chainId: chainId as string,
    initialHeight: initialHeight === 0n ? 1n : initialHeight,
    consensusParams: raw.consensus_params === undefined ? defaultConsensusParams() : parseParams(raw.consensus_params),
    validators,
    appHash: Buffer.from(String(raw.app_hash ?? ''), 'hex'),
    ...(raw.app_state === undefined ? {} : { appState: raw.app_state as Json }),
  };
}

function parseValidator(entry: unknown, i: number, fail: (why: string) => never): GenesisValidator {
  const v = entry as { address?: string; pub_key?: { type?: string; value?: string }; power?: string; name?: string };
  if (v.pub_key?.type !== 'tendermint/PubKeyEd25519' || typeof v.pub_key.value !== 'string') {
    fail(`validator #${i} must have a tendermint/PubKeyEd25519 pub_key`);
  }
  const pubKey = new Uint8Array(Buffer.from(v.pub_key?.value ?? '', 'base64'));
  const power = BigInt(v.power ?? '0');
  if (power === 0n) fail(`the genesis file cannot contain validators with no voting power: validator #${i}`);
  const address = addressOf(pubKey);
  if (v.address !== undefined && v.address !== '' && !Buffer.from(v.address, 'hex').equals(address)) {
    fail(`incorrect address for validator #${i} in the genesis file, should be ${hexJson(address)}`);
  }
  return { address, pubKey, power, name: v.name ?? '' };
}

function parseParams(raw: unknown): ConsensusParams {
  const p = raw as {
    block?: { max_bytes?: string; max_gas?: string };
    evidence?: { max_age_num_blocks?: string; max_age_duration?: string; max_bytes?: string };
    validator?: { pub_key_types?: string[] };
    version?: { app?: string };
    abci?: { vote_extensions_enable_height?: string };
  };
  const d = defaultConsensusParams();
  const big = (text: string | undefined, fallback: bigint): bigint => (text === undefined ? fallback : BigInt(text));
  return {
    block: { maxBytes: big(p.block?.max_bytes, d.block.maxBytes), maxGas: big(p.block?.max_gas, d.block.maxGas) },
    evidence: {
      maxAgeNumBlocks: big(p.evidence?.max_age_num_blocks, d.evidence.maxAgeNumBlocks),
      maxAgeDurationNs: big(p.evidence?.max_age_duration, d.evidence.maxAgeDurationNs),
      maxBytes: big(p.evidence?.max_bytes, d.evidence.maxBytes),
    },
    validator: { pubKeyTypes: p.validator?.pub_key_types ?? d.validator.pubKeyTypes },
    version: { app: big(p.version?.app, d.version.app) },
    abci: { voteExtensionsEnableHeight: big(p.abci?.vote_extensions_enable_height, d.abci.voteExtensionsEnableHeight) },
  };
}
