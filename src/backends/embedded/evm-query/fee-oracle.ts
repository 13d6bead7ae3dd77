/**
 * Fee suggestions and history from the devnet's recent blocks, as go-ethereum's gas price oracle and
 * eth_feeHistory compute them. The suggested tip is the 60th percentile of the three lowest tips
 * (≥ 2 wei) of each of the last 20 blocks, at most 500 gwei, and 1 gwei when no block has a tip.
 */
import { ApplicationError } from '../../../rpc/errors';
import type { BlockRef } from '../../../evm-rpc/evm-types';
import type { JsonObject } from '../../../rpc/json';
import { nextBaseFee } from '../../../devnet/app/evm/base-fee';
import type { EvmBlockRecord } from '../../../devnet/evm-state/evm-chain-store';
import type { EvmChainView } from './chain-view';
import { quantity } from '../../../devnet/app/evm/hex';

const GWEI = 1_000_000_000n;
const SAMPLE_BLOCKS = 20n;
const SAMPLES_PER_BLOCK = 3;
const PERCENTILE = 60;
const IGNORE_PRICE = 2n;
const MAX_PRICE = 500n * GWEI;
const DEFAULT_TIP = GWEI;

export class FeeOracle {
  private cached: { head: bigint; tip: bigint } | undefined;

  constructor(private readonly chain: EvmChainView) {}

  async suggestTip(): Promise<bigint> {
    const head = this.chain.head;
    if (this.cached?.head === head) return this.cached.tip;
    const samples: bigint[] = [];
    const first = this.chain.firstHeight;
    for (let h = head; h >= first && h > head - SAMPLE_BLOCKS; h--) {
      const record = await this.chain.evm.chain.loadBlock(h);
      if (record === undefined) continue;
      samples.push(...tipsOf(record).filter((tip) => tip >= IGNORE_PRICE).slice(0, SAMPLES_PER_BLOCK));
    }
    samples.sort(compare);
    let tip = samples.length === 0 ? DEFAULT_TIP : samples[Math.floor(((samples.length - 1) * PERCENTILE) / 100)];
    if (tip > MAX_PRICE) tip = MAX_PRICE;
    this.cached = { head, tip };
    return tip;
  }

  /** The suggested tip plus the latest block's base fee. */
  async gasPrice(): Promise<bigint> {
    const latest = await this.chain.evm.chain.loadBlock(this.chain.head);
    return (await this.suggestTip()) + (latest?.baseFee ?? this.chain.evm.nextBaseFee());
  }

  async feeHistory(blockCount: bigint, lastBlock: BlockRef, percentiles: readonly number[]): Promise<JsonObject> {
    checkPercentiles(percentiles);
    if (blockCount < 1n) return { oldestBlock: '0x0', gasUsedRatio: null };
    const head = this.chain.head;
    if (lastBlock.kind === 'number' && lastBlock.number > head) {
      throw new ApplicationError(`request beyond head block: requested ${lastBlock.number}, head ${head}`);
    }
    const last = await this.chain.requireHeight(lastBlock);
    const first = this.chain.firstHeight;
    const oldest = last - blockCount + 1n > first ? last - blockCount + 1n : first;
    const records: EvmBlockRecord[] = [];
    for (let h = oldest; h <= last; h++) records.push((await this.chain.requireBlock(h)).record);
    const json: JsonObject = { oldestBlock: quantity(oldest) };
    if (percentiles.length > 0) json.reward = records.map((r) => rewardsOf(r, percentiles).map(quantity));
    json.baseFeePerGas = [...records.map((r) => quantity(r.baseFee)), quantity(nextBaseFee(records[records.length - 1]))];
    json.gasUsedRatio = records.map((r) => (r.gasLimit === 0n ? 0 : Number(r.gasUsed) / Number(r.gasLimit)));
    return json;
  }
}

function tipsOf(record: EvmBlockRecord): bigint[] {
  return record.txs.map((tx) => tx.effectiveGasPrice - record.baseFee).sort(compare);
}

/** go-ethereum's rewards: the tip of the tx at which the block's gas used reaches each percentile. */
function rewardsOf(record: EvmBlockRecord, percentiles: readonly number[]): bigint[] {
  if (record.txs.length === 0) return percentiles.map(() => 0n);
  const sorted = record.txs.map((tx) => ({ tip: tx.effectiveGasPrice - record.baseFee, gasUsed: tx.gasUsed })).sort((a, b) => compare(a.tip, b.tip));
  let index = 0;
  let sum = sorted[0].gasUsed;
  return percentiles.map((p) => {
    const threshold = BigInt(Math.floor((Number(record.gasUsed) * p) / 100));
    while (sum < threshold && index < sorted.length - 1) sum += sorted[++index].gasUsed;
    return sorted[index].tip;
  });
}

function checkPercentiles(percentiles: readonly number[]): void {
  percentiles.forEach((p, i) => {
    if (p < 0 || p > 100) throw new ApplicationError(`invalid reward percentile: ${p.toFixed(6)}`);
    if (i > 0 && p <= percentiles[i - 1]) {
      throw new ApplicationError(`invalid reward percentile: #${i - 1}:${percentiles[i - 1].toFixed(6)} >= #${i}:${p.toFixed(6)}`);
    }
  });
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
