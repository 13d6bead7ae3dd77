import { Inject, Injectable } from '@nestjs/common';
import type { TransactionLike } from 'ethers';
import { EVM_BACKEND, type EvmBackend } from '../../backends/evm-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import { toQuantity } from '../codec/hex';
import { toBackendArgs, type RpcTransactionArgs } from '../codec/transaction-args';

const LATEST = { kind: 'tag', tag: 'latest' } as const;
const PENDING = { kind: 'tag', tag: 'pending' } as const;

/**
 * go-ethereum's TransactionArgs.setDefaults: fills nonce, gas, fees and chain id from the backend and
 * picks the transaction type (dynamic fee when the chain has a base fee and no gasPrice was given).
 */
@Injectable()
export class TransactionDefaults {
  constructor(
    @Inject(EVM_BACKEND) private readonly backend: EvmBackend,
    private readonly config: GatewayConfigService,
  ) {}

  async fill(rpcArgs: RpcTransactionArgs, from: string): Promise<TransactionLike<string>> {
    const args = toBackendArgs(rpcArgs);
    const fees = await this.fees(args.gasPrice, args.maxFeePerGas, args.maxPriorityFeePerGas);
    if (args.to === undefined && (args.input ?? '0x') === '0x') throw new ApplicationError('contract creation without any data provided');
    const chainId = await this.backend.chainId();
    if (args.chainId !== undefined && args.chainId !== chainId) {
      throw new ApplicationError(`chainId does not match node's (have=${args.chainId}, want=${chainId})`);
    }
    const nonce = args.nonce ?? (await this.backend.getTransactionCount(from, PENDING));
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
    const head = await this.backend.getBlockByNumber(LATEST, false);
    const baseFee = typeof head?.baseFeePerGas === 'string' ? BigInt(head.baseFeePerGas) : undefined;
    if (baseFee === undefined) {
      if (dynamic) throw new ApplicationError('maxFeePerGas or maxPriorityFeePerGas specified but london is not active yet');
      return { gasPrice: gasPrice ?? (await this.backend.gasPrice()) };
    }
    if (gasPrice !== undefined) return { gasPrice };
    const tip = maxPriorityFeePerGas ?? (await this.backend.maxPriorityFeePerGas());
    const feeCap = maxFeePerGas ?? tip + 2n * baseFee;
    if (feeCap < tip) throw new ApplicationError(`maxFeePerGas (${toQuantity(feeCap)}) < maxPriorityFeePerGas (${toQuantity(tip)})`);
    return { maxFeePerGas: feeCap, maxPriorityFeePerGas: tip };
  }

  private estimate(args: Parameters<EvmBackend['estimateGas']>[0]): Promise<bigint> {
    const rpc = this.config.jsonRpc;
    return this.backend.estimateGas(args, PENDING, { gasCap: BigInt(rpc['gas-cap']), timeoutMs: rpc['evm-timeout'] });
  }
}
