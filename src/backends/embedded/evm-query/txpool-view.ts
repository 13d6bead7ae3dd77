/**
 * The txpool namespace over the devnet mempool's Ethereum txs, in go-ethereum's shapes: every tx is
 * `pending` (the mempool is FIFO and admits no nonce gaps, so nothing is `queued`), grouped by
 * checksummed sender and decimal nonce.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { JsonObject } from '../../../rpc/json';
import { decodeEthTx } from '../../../devnet/app/evm/eth-tx';
import { feeCapOf } from '../../../devnet/app/evm/tx-checks';
import type { EvmChainView } from './chain-view';
import { hexData, quantity, toChecksumAddress } from '../../../devnet/app/evm/hex';
import { txJson } from './tx-json';

export interface PendingTx {
  tx: TypedTransaction;
  from: Uint8Array;
}

export class TxPoolView {
  constructor(private readonly chain: EvmChainView) {}

  /** The mempool's Ethereum txs, oldest first. */
  pending(): PendingTx[] {
    const { mempool } = this.chain.devnet;
    const txs: PendingTx[] = [];
    for (const bytes of mempool.list(mempool.size)) {
      const decoded = decodeEthTx(bytes, this.chain.evm.common);
      if (decoded.kind !== 'tx') continue;
      try {
        txs.push({ tx: decoded.tx, from: decoded.tx.getSenderAddress().bytes });
      } catch {
        // A tx whose sender cannot be recovered never passed CheckTx.
      }
    }
    return txs;
  }

  content(): JsonObject {
    return { pending: this.grouped((p) => this.json(p)), queued: {} };
  }

  contentFrom(address: string): JsonObject {
    const pending: JsonObject = {};
    for (const p of this.pending()) if (hexData(p.from) === address.toLowerCase()) pending[p.tx.nonce.toString()] = this.json(p);
    return { pending, queued: {} };
  }

  inspect(): JsonObject {
    return { pending: this.grouped(({ tx }) => summary(tx)), queued: {} };
  }

  status(): JsonObject {
    return { pending: quantity(this.pending().length), queued: '0x0' };
  }

  private json({ tx, from }: PendingTx): JsonObject {
    return txJson(tx, from, this.chain.evm.params.chainId, undefined);
  }

  private grouped(entry: (p: PendingTx) => JsonObject | string): JsonObject {
    const bySender: Record<string, JsonObject> = {};
    for (const p of this.pending()) {
      const sender = toChecksumAddress(p.from);
      (bySender[sender] ??= {})[p.tx.nonce.toString()] = entry(p);
    }
    return bySender;
  }
}

/** go-ethereum's txpool_inspect line. */
function summary(tx: TypedTransaction): string {
  const cost = `${tx.value} wei + ${tx.gasLimit} gas × ${feeCapOf(tx)} wei`;
  return tx.to === undefined ? `contract creation: ${cost}` : `${toChecksumAddress(tx.to.bytes)}: ${cost}`;
}
