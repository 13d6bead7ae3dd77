/**
 * What a transaction executes in: an ethereumjs VM over a world state, and the block it runs in. The
 * block's BLOCKHASH values are the node's block hashes (the EVM block hash is the CometBFT header hash).
 */
import { createBlock, type Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import type { ExecutionWatchdog } from './execution-watchdog';

/** The header values a transaction can observe. */
export interface BlockEnv {
  height: bigint;
  /** Unix seconds. */
  timestamp: bigint;
  gasLimit: bigint;
  baseFee: bigint;
  /** 20 bytes: COINBASE, and who earns the tips. */
  coinbase: Uint8Array;
}

/** The node block hash at a height, if the node has that block. */
export type BlockHashLookup = (height: bigint) => Promise<Uint8Array | undefined>;

export function blockOf(env: BlockEnv, common: Common): Block {
  return createBlock(
    {
      header: {
        number: env.height,
        timestamp: env.timestamp,
        gasLimit: env.gasLimit,
        baseFeePerGas: env.baseFee,
        coinbase: new Address(env.coinbase),
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
}

/** A VM over `state`; with a watchdog, its executions can be stopped at a deadline. */
export async function createDevnetVm(common: Common, state: MerkleStateManager, blockHashes: BlockHashLookup, watchdog?: ExecutionWatchdog): Promise<VM> {
  const vm = await createVM({
    common,
    stateManager: state,
    blockchain: new NodeBlockHashes(blockHashes),
    evmOpts: watchdog === undefined ? undefined : { customOpcodes: watchdog.opcodes(common) },
  });
  watchdog?.watch(vm);
  return vm;
}

/** BLOCKHASH's source: the node's blocks. */
class NodeBlockHashes implements EVMMockBlockchainInterface {
  constructor(private readonly lookup: BlockHashLookup) {}

  async getBlock(height: number): Promise<{ hash(): Uint8Array }> {
    const hash = (await this.lookup(BigInt(height))) ?? new Uint8Array(32);
    return { hash: () => hash };
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): EVMMockBlockchainInterface {
    return this;
  }
}
