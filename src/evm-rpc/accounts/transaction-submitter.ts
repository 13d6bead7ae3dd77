import { Inject, Injectable } from '@nestjs/common';
import { Transaction, getBytes, keccak256, type Wallet } from 'ethers';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { BROADCAST_QUEUE, sendClock, type BroadcastQueue, type Delivery } from '../../queue/broadcast-queue';
import { nodeAnswer, notDelivered, submitOrRefuse } from '../../queue/submission';
import { ApplicationError } from '../../rpc/errors';
import type { Invoker } from '../../rpc/invoker';
import { INVOKER } from '../../rpc/registration';
import type { RpcTransactionArgs } from '../codec/transaction-args';
import { eth_sendRawTransaction } from '../eth/send.methods';
import { MinerSettings } from '../miner/miner-settings';
import { TransactionDefaults } from './transaction-defaults';

const WEI_PER_ETHER = 1e18;

/**
 * The one way a transaction leaves the EVM RPC: go-ethereum's SubmitTransaction checks (fee cap,
 * replay protection) and the miner gas price floor, then the broadcast queue, whose workers deliver it
 * with the node's eth_sendRawTransaction. The caller gets the hash once the node took the tx, or the
 * node's refusal as the node gave it; when the node does not answer within `[queue] check_timeout`
 * (the backend is unavailable), the hash: the tx stays queued and is delivered when the node is back.
 */
@Injectable()
export class TransactionSubmitter {
  constructor(
    @Inject(INVOKER.evm) private readonly evm: Invoker,
    @Inject(BROADCAST_QUEUE) private readonly queue: BroadcastQueue,
    private readonly config: GatewayConfigService,
    private readonly miner: MinerSettings,
    private readonly defaults: TransactionDefaults,
  ) {}

  async submitRaw(raw: string): Promise<string> {
    const sentAt = sendClock();
    const tx = decodeTransaction(raw);
    // Bytes that do not decode to a signed tx are the backend's to refuse, in its own words; never queued.
    if (!tx?.from) return this.evm.invoke(eth_sendRawTransaction, { data: raw });
    this.admit(tx);
    const bytes = getBytes(raw);
    const hash = keccak256(bytes);
    const job = { lane: 'evm' as const, id: hash, tx: Buffer.from(bytes).toString('base64'), sender: tx.from.toLowerCase(), nonce: tx.nonce };
    // Sent while the same tx's delivery is under way (through any replica), it gets that delivery's answer.
    const { delivery } = await submitOrRefuse(this.queue, job, { sentAt, waitMs: this.config.gateway.queue.check_timeout });
    return answer(delivery, hash);
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

/** A signed tx whose sender can be recovered; undefined for anything else. */
function decodeTransaction(raw: string): Transaction | undefined {
  try {
    const tx = Transaction.from(raw);
    return tx.from ? tx : undefined;
  } catch {
    return undefined;
  }
}

/** The hash for a tx the node took (or holds queued); the node's refusal, or a delivery that gave up, as an error. */
function answer(delivery: Delivery | undefined, hash: string): string {
  switch (delivery?.status) {
    case undefined:
    case 'accepted':
      return hash;
    case 'known':
      // The first attempt's "already known" is the node's answer to this tx; a later one echoes an earlier attempt.
      if (delivery.first) throw nodeAnswer(delivery.error);
      return hash;
    case 'rejected':
      throw delivery.error ? nodeAnswer(delivery.error) : new ApplicationError(String(delivery.check?.log ?? 'transaction rejected'));
    case 'failed':
      throw notDelivered(hash, delivery.reason);
  }
}
