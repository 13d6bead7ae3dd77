import { Inject, Injectable } from '@nestjs/common';
import { Transaction, getBytes, type Wallet } from 'ethers';
import { EVM_BACKEND, type EvmBackend } from '../../backends/evm-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import type { RpcTransactionArgs } from '../codec/transaction-args';
import { MinerSettings } from '../miner/miner-settings';
import { TransactionDefaults } from './transaction-defaults';

const WEI_PER_ETHER = 1e18;

/**
 * The one way a transaction leaves the EVM RPC: go-ethereum's SubmitTransaction checks (fee cap,
 * replay protection) and the miner gas price floor, then the backend's sendRawTransaction.
 */
@Injectable()
export class TransactionSubmitter {
  constructor(
    @Inject(EVM_BACKEND) private readonly backend: EvmBackend,
    private readonly config: GatewayConfigService,
    private readonly miner: MinerSettings,
    private readonly defaults: TransactionDefaults,
  ) {}

  async submitRaw(raw: string): Promise<string> {
    const tx = decodeTransaction(raw);
    // Undecodable bytes are the backend's to refuse, with its own decoding error.
    if (tx) this.admit(tx);
    return this.backend.sendRawTransaction(getBytes(raw));
  }

  /** Fills the defaults, signs with the account's key and submits (eth/personal_sendTransaction). */
  async signAndSubmit(args: RpcTransactionArgs, wallet: Wallet): Promise<string> {
    const tx = await this.defaults.fill(args, wallet.address.toLowerCase());
    return this.submitRaw(await wallet.signTransaction(tx));
  }

  /** go-ethereum's checkTxFee against `[json-rpc] txfee-cap` (ether; 0 = no cap). */
  checkFee(gasPrice: bigint, gas: bigint): void {
    const cap = this.config.jsonRpc['txfee-cap'];
    const fee = Number(gasPrice * gas) / WEI_PER_ETHER;
    if (cap > 0 && fee > cap) throw new ApplicationError(`tx fee (${fee.toFixed(2)} ether) exceeds the configured cap (${cap.toFixed(2)} ether)`);
  }

  private admit(tx: Transaction): void {
    this.checkFee(tx.maxFeePerGas ?? tx.gasPrice ?? 0n, tx.gasLimit);
    if (!this.config.jsonRpc['allow-unprotected-txs'] && tx.type === 0 && tx.chainId === 0n) {
      throw new ApplicationError('only replay-protected (EIP-155) transactions allowed over RPC');
    }
    const tip = tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n;
    if (tip < this.miner.minGasPrice) throw new ApplicationError('transaction underpriced');
  }
}

function decodeTransaction(raw: string): Transaction | undefined {
  try {
    return Transaction.from(raw);
  } catch {
    return undefined;
  }
}
