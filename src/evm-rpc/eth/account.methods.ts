import { Inject, Injectable } from '@nestjs/common';
import { Transaction } from 'ethers';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import type { JsonObject } from '../../rpc/json';
import { defineMethod, optional, param, type AnyMethod } from '../../rpc/method';
import type { Invoker } from '../../rpc/invoker';
import { INVOKER, type MethodSource } from '../../rpc/registration';
import { DevKeystore } from '../accounts/dev-keystore';
import { requireInsecureUnlock } from '../accounts/insecure-unlock';
import { signText, signTypedData } from '../accounts/signatures';
import { TransactionDefaults } from '../accounts/transaction-defaults';
import { TransactionSubmitter } from '../accounts/transaction-submitter';
import * as c from '../codec/codecs';
import type { RpcTransactionArgs } from '../codec/transaction-args';
import { txpool_content } from '../txpool/txpool.methods';
import { eth_sendRawTransaction } from './send.methods';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Accounts of the dev keystore and sending: eth_accounts, eth_sign*, eth_send*, eth_resend. */
@Injectable()
export class EthAccountMethods implements MethodSource {
  constructor(
    @Inject(INVOKER.evm) private readonly evm: Invoker,
    private readonly keystore: DevKeystore,
    private readonly submitter: TransactionSubmitter,
    private readonly defaults: TransactionDefaults,
    private readonly config: GatewayConfigService,
  ) {}

  methods(): AnyMethod[] {
    const keys = this.keystore;
    const group = 'eth';
    return [
      defineMethod({ group, name: 'eth_accounts', params: [], idempotent: true, handler: () => this.unlocked(() => keys.addresses()) }),
      defineMethod({
        group,
        name: 'eth_sign',
        params: [param('address', c.address), param('data', c.data)],
        handler: async (a) => signText(await keys.unlockedWallet(a.address), a.data),
      }),
      defineMethod({
        group,
        name: 'eth_signTypedData',
        params: [param('address', c.address), param('typedData', c.typedData)],
        handler: async (a) => signTypedData(await keys.unlockedWallet(a.address), a.typedData),
      }),
      // Not forwarded: the gateway checks the fee cap, replay protection and the miner gas price floor, then
      // the broadcast queue delivers it (eth_sendTransaction, signed here, takes the same path).
      { ...eth_sendRawTransaction, handler: (a: { readonly data: string }) => this.submitter.submitRaw(a.data) },
      defineMethod({
        group,
        name: 'eth_sendTransaction',
        params: [param('args', c.transactionArgs)],
        handler: (a) => this.unlocked(async () => this.submitter.signAndSubmit(a.args, await keys.unlockedWallet(a.args.from ?? ZERO_ADDRESS))),
      }),
      defineMethod({
        group,
        name: 'eth_resend',
        params: [param('args', c.transactionArgs), optional('gasPrice', c.big), optional('gasLimit', c.uint64)],
        handler: (a) => this.resend(a.args, a.gasPrice, a.gasLimit),
      }),
    ];
  }

  /** Runs `use` of node-held keys when `allow-insecure-unlock` permits it, as Evmos's backend checks. */
  private unlocked<T>(use: () => Promise<T>): Promise<T> {
    requireInsecureUnlock(this.config.jsonRpc);
    return use();
  }

  /**
   * go-ethereum's Resend: finds the pending transaction whose signing hash equals that of `args`
   * (with defaults filled) and replaces it with the new gas price and limit.
   */
  private async resend(args: RpcTransactionArgs, gasPrice: bigint | undefined, gasLimit: bigint | undefined): Promise<string> {
    if (args.nonce === undefined) throw new ApplicationError('missing transaction nonce in transaction spec');
    const from = args.from ?? ZERO_ADDRESS;
    const wallet = await this.keystore.unlockedWallet(from);
    const match = Transaction.from(await this.defaults.fill(args, from));
    this.submitter.checkFee(gasPrice ?? match.maxFeePerGas ?? match.gasPrice ?? 0n, gasLimit ?? match.gasLimit);
    const pending = (await this.evm.invoke(txpool_content, {})).pending;
    const mine = Object.entries(pending).find(([sender]) => sender.toLowerCase() === from)?.[1] ?? {};
    if (!Object.values(mine).some((tx) => signingHash(tx) === match.unsignedHash)) {
      throw new ApplicationError(`transaction ${match.unsignedHash} not found`);
    }
    const replacement: RpcTransactionArgs = {
      ...args,
      ...(gasPrice ? { gasPrice } : {}),
      ...(gasLimit ? { gas: gasLimit } : {}),
    };
    return this.submitter.signAndSubmit(replacement, wallet);
  }
}

/** The signing hash of a transaction given as RPC JSON, or undefined when it cannot be rebuilt. */
function signingHash(tx: JsonObject): string | undefined {
  try {
    const type = Number(tx.type ?? 0);
    const fees = type >= 2 ? { maxFeePerGas: tx.maxFeePerGas as string, maxPriorityFeePerGas: tx.maxPriorityFeePerGas as string } : { gasPrice: tx.gasPrice as string };
    return Transaction.from({
      type,
      chainId: tx.chainId as string,
      nonce: Number(tx.nonce),
      gasLimit: tx.gas as string,
      to: tx.to as string | null,
      value: tx.value as string,
      data: tx.input as string,
      accessList: type >= 1 ? (tx.accessList as { address: string; storageKeys: string[] }[]) : undefined,
      ...fees,
    }).unsignedHash;
  } catch {
    return undefined;
  }
}
