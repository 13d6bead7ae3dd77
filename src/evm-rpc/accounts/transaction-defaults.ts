import { Inject, Injectable } from '@nestjs/common';
import type { TransactionLike } from 'ethers';
import { ApplicationError } from '../../rpc/errors';
import type { Invoker } from '../../rpc/invoker';
import { INVOKER } from '../../rpc/registration';
import { toQuantity } from '../codec/hex';
import { toBackendArgs, type RpcTransactionArgs } from '../codec/transaction-args';
import { eth_getBlockByNumber } from '../eth/blocks.methods';
import { eth_chainId, eth_gasPrice, eth_maxPriorityFeePerGas } from '../eth/chain.methods';
import { eth_estimateGas, eth_getTransactionCount } from '../eth/state.methods';
import type { TransactionArgs } from '../evm-types';

const LATEST = { kind: 'tag', tag: 'latest' } as const;
const PENDING = { kind: 'tag', tag: 'pending' } as const;

/**
 * go-ethereum's TransactionArgs.setDefaults: fills nonce, gas, fees and chain id from the backend and
 * picks the transaction type (dynamic fee when the chain has a base fee and no gasPrice was given).
 */
@Injectable()
export class TransactionDefaults {
  constructor(@Inject(INVOKER.evm) private readonly evm: Invoker) {}

  async fill(rpcArgs: RpcTransactionArgs, from: string): Promise<TransactionLike<string>> {
    const args = toBackendArgs(rpcArgs);
    const fees = await this.fees(args.gasPrice, args.maxFeePerGas, args.maxPriorityFeePerGas);
    if (args.to === undefined && (args.input ?? '0x') === '0x') throw new ApplicationError('contract creation without any data provided');
    const chainId = BigInt(await this.evm.invoke(eth_chainId, {}));
    if (args.chainId !== undefined && args.chainId !== chainId) {
      throw new ApplicationError(`chainId does not match node's (have=${args.chainId}, want=${chainId})`);
    }
    const nonce = args.nonce ?? BigInt(await this.evm.invoke(eth_getTransactionCount, { address: from, block: PENDING }));
    const gas = args.gas ?? (await this.estimate({ ...args, ...fees, from }));
    return {
      type: fees.maxFeePerGas !== undefined ? 2 : args.accessList !== undefined ? 1 : 0,
      chainId,
      nonce: Number(nonce),
      gasLimit: gas,
      to: args.to ?? null,
      value: args.value ?? 0n,
      data: args.input ?? '0x',
      accessList: args.accessList?.map((t) => ({ address: t.address, storageKeys: [...t.storageKeys] })),
      ...fees,
    };
  }

  private async fees(
    gasPrice: bigint | undefined,
    maxFeePerGas: bigint | undefined,
    maxPriorityFeePerGas: bigint | undefined,
  ): Promise<{ gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint }> {
    const dynamic = maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined;
    if (gasPrice !== undefined && dynamic) throw new ApplicationError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
    const head = await this.evm.invoke(eth_getBlockByNumber, { block: LATEST, fullTransactions: false });
    const baseFee = typeof head?.baseFeePerGas === 'string' ? BigInt(head.baseFeePerGas) : undefined;
    if (baseFee === undefined) {
      if (dynamic) throw new ApplicationError('maxFeePerGas or maxPriorityFeePerGas specified but london is not active yet');
      return { gasPrice: gasPrice ?? BigInt(await this.evm.invoke(eth_gasPrice, {})) };
    }
    if (gasPrice !== undefined) return { gasPrice };
    const tip = maxPriorityFeePerGas ?? BigInt(await this.evm.invoke(eth_maxPriorityFeePerGas, {}));
    const feeCap = maxFeePerGas ?? tip + 2n * baseFee;
    if (feeCap < tip) throw new ApplicationError(`maxFeePerGas (${toQuantity(feeCap)}) < maxPriorityFeePerGas (${toQuantity(tip)})`);
    return { maxFeePerGas: feeCap, maxPriorityFeePerGas: tip };
  }

  private async estimate(args: TransactionArgs): Promise<bigint> {
    return BigInt(await this.evm.invoke(eth_estimateGas, { args, block: PENDING }));
  }
}
