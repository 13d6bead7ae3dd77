/**
 * The EVM chain the devnet runs: its EIP-155 chain id, block gas limit, EIP-1559 base fee start and
 * replay-protection rule, and the ethereumjs `Common` (Cancun rules: EIP-1559 base fee, PUSH0,
 * transient storage, MCOPY; blob transactions are not accepted).
 */
import { Common, createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';

export interface EvmParams {
  /** The EIP-155 chain id (eth_chainId, net_version). */
  chainId: bigint;
  /** Used when the consensus params leave block.max_gas unlimited (-1). */
  blockGasLimit: bigint;
  /** The base fee of the first block, in wei. */
  initialBaseFee: bigint;
  /** json-rpc allow-unprotected-txs: accept legacy txs signed without a chain id. */
  allowUnprotectedTxs: boolean;
}

/** What the devnet config may say about the EVM; everything has a default. */
export interface EvmConfig {
  /** The EIP-155 chain id; by default taken from an Evmos-style chain id (`name_9000-1`), else 9000. */
  chainId?: bigint;
  blockGasLimit?: bigint;
  initialBaseFee?: bigint;
  allowUnprotectedTxs?: boolean;
}

export const DEFAULT_EVM_CHAIN_ID = 9000n;
export const DEFAULT_BLOCK_GAS_LIMIT = 30_000_000n;
export const DEFAULT_INITIAL_BASE_FEE = 1_000_000_000n;

export const HARDFORK = Hardfork.Cancun;

/** Evmos's chain-id format: `{identifier}_{EIP155}-{epoch}`. */
const EVMOS_CHAIN_ID = /^[a-z]+_([1-9][0-9]*)-[1-9][0-9]*$/;

/** The EIP-155 chain id an Evmos-style Cosmos chain id carries, if it has that form. */
export function eip155ChainIdOf(cosmosChainId: string): bigint | undefined {
  const match = EVMOS_CHAIN_ID.exec(cosmosChainId);
  return match === null ? undefined : BigInt(match[1]);
}

export function resolveEvmParams(config: EvmConfig, cosmosChainId: string): EvmParams {
  return {
    chainId: config.chainId ?? eip155ChainIdOf(cosmosChainId) ?? DEFAULT_EVM_CHAIN_ID,
    blockGasLimit: config.blockGasLimit ?? DEFAULT_BLOCK_GAS_LIMIT,
    initialBaseFee: config.initialBaseFee ?? DEFAULT_INITIAL_BASE_FEE,
    allowUnprotectedTxs: config.allowUnprotectedTxs ?? false,
  };
}

export function commonFor(chainId: bigint): Common {
  if (chainId > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`EVM chain id ${chainId} is too large`);
  return createCustomCommon({ chainId: Number(chainId), name: `rpc-gateway-devnet-${chainId}` }, Mainnet, { hardfork: HARDFORK });
}
