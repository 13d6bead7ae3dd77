import { Inject, Injectable } from '@nestjs/common';
import { Transaction } from 'ethers';
import { EVM_BACKEND, type EvmBackend } from '../../backends/evm-backend';
import type { JsonObject } from '../../backends/node-backend';
import { ApplicationError } from '../../rpc/errors';
import type { MethodSpec } from '../../rpc/method-spec';
import { DevKeystore } from '../accounts/dev-keystore';
import { signText, signTypedData } from '../accounts/signatures';
import { TransactionDefaults } from '../accounts/transaction-defaults';
import { TransactionSubmitter } from '../accounts/transaction-submitter';
import type { RpcTransactionArgs } from '../codec/transaction-args';
import { param, type MethodTable } from '../core/evm-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Accounts of the dev keystore and sending: eth_accounts, eth_sign*, eth_send*, eth_resend. */
@Injectable()
export class EthAccountMethods implements MethodTable {
  constructor(
    @Inject(EVM_BACKEND) private readonly b: EvmBackend,
    private readonly keystore: DevKeystore,
    private readonly submitter: TransactionSubmitter,
    private readonly defaults: TransactionDefaults,
  ) {}

  methods(): MethodSpec[] {
    const keys = this.keystore;
    const group = 'eth';
    return [
      { group, name: 'eth_accounts', params: [], idempotent: true, handler: () => keys.addresses() },
      {
        group,
        name: 'eth_sign',
        params: [param('address', 'address'), param('data', 'data')],
        handler: async (a: A) => signText(await keys.unlockedWallet(a.address), a.data),
      },
      {
        group,
        name: 'eth_signTypedData',
        params: [param('address', 'address'), param('typedData', 'typedData')],
        handler: async (a: A) => signTypedData(await keys.unlockedWallet(a.address), a.typedData),
      },
      { group, name: 'eth_sendRawTransaction', params: [param('data', 'data')], handler: (a: A) => this.submitter.submitRaw(a.data) },
      {
        group,
        name: 'eth_sendTransaction',
        params: [param('args', 'transactionArgs')],
        handler: async (a: A) => this.submitter.signAndSubmit(a.args, await keys.unlockedWallet(a.args.from ?? ZERO_ADDRESS)),
      },
      {
        group,
        name: 'eth_resend',
        params: [param('args', 'transactionArgs'), param('gasPrice', 'big', true), param('gasLimit', 'uint64', true)],
        handler: (a: A) => this.resend(a.args, a.gasPrice, a.gasLimit),
      },
    ];
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
    const pending = ((await this.b.txpoolContent()).pending ?? {}) as Record<string, Record<string, JsonObject>>;
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
