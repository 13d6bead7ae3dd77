/**
 * The validity rules of an Ethereum transaction on the devnet, with go-ethereum's texts (txpool and
 * state-transition errors) and Cosmos SDK error codes (codespace `sdk`) as an Evmos node reports them.
 * The stateless rules run once per tx; the stateful ones against the sender's account as CheckTx or
 * the block sees it.
 */
import { Capability, type TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import { toChecksumAddress } from './hex';

export const CODESPACE = 'sdk';

/** Cosmos SDK error codes (types/errors). */
export const Code = {
  txDecode: 2,
  unauthorized: 4,
  insufficientFunds: 5,
  outOfGas: 11,
  insufficientFee: 13,
  invalidRequest: 18,
  invalidChainId: 28,
  wrongSequence: 32,
  notSupported: 37,
  invalidGasLimit: 41,
} as const;

export interface TxRejection {
  code: number;
  log: string;
}

/** EIP-3860's limit on init code (2 × the EIP-170 code size limit). */
const MAX_INITCODE_SIZE = 49152;

export const UNPROTECTED_TX = 'only replay-protected (EIP-155) transactions allowed over RPC';

export interface StatelessRules {
  allowUnprotectedTxs: boolean;
  blockGasLimit: bigint;
}

/** The rules that need no state; returns the sender on success. */
export function checkStateless(tx: TypedTransaction, isProtected: boolean, rules: StatelessRules): Address | TxRejection {
  if (!isProtected && !rules.allowUnprotectedTxs) return { code: Code.notSupported, log: UNPROTECTED_TX };
  if (tx.to === undefined && tx.data.length > MAX_INITCODE_SIZE) {
    return { code: Code.invalidRequest, log: `max initcode size exceeded: code size ${tx.data.length}, limit ${MAX_INITCODE_SIZE}` };
  }
  if (tx.gasLimit > rules.blockGasLimit) return { code: Code.invalidGasLimit, log: 'exceeds block gas limit' };
  let sender: Address;
  try {
    sender = tx.getSenderAddress();
  } catch {
    return { code: Code.unauthorized, log: 'invalid sender: invalid transaction v, r, s values' };
  }
  const intrinsic = tx.getIntrinsicGas();
  if (tx.gasLimit < intrinsic) {
    return { code: Code.outOfGas, log: `intrinsic gas too low: gas ${tx.gasLimit}, minimum needed ${intrinsic}` };
  }
  return sender;
}

/** The sender's account as the check sees it: pending nonce, and the balance not yet promised to earlier txs. */
export interface SenderAccount {
  nonce: bigint;
  balance: bigint;
  isContract: boolean;
}

export function checkAgainstState(tx: TypedTransaction, sender: Address, account: SenderAccount, baseFee: bigint): TxRejection | undefined {
  const from = toChecksumAddress(sender.bytes);
  if (tx.nonce < account.nonce) return { code: Code.wrongSequence, log: `nonce too low: next nonce ${account.nonce}, tx nonce ${tx.nonce}` };
  if (tx.nonce > account.nonce) return { code: Code.wrongSequence, log: `nonce too high: next nonce ${account.nonce}, tx nonce ${tx.nonce}` };
  if (account.isContract) return { code: Code.unauthorized, log: `sender not an eoa: address ${from}` };
  const feeCap = feeCapOf(tx);
  if (feeCap < baseFee) {
    const field = tx.supports(Capability.EIP1559FeeMarket) ? 'maxFeePerGas' : 'gasPrice';
    return { code: Code.insufficientFee, log: `max fee per gas less than block base fee: address ${from}, ${field}: ${feeCap}, baseFee: ${baseFee}` };
  }
  const cost = costOf(tx);
  if (account.balance < cost) {
    return {
      code: Code.insufficientFunds,
      log: `insufficient funds for gas * price + value: balance ${account.balance}, tx cost ${cost}, overshot ${cost - account.balance}`,
    };
  }
  return undefined;
}

/** The most the tx can pay per gas: maxFeePerGas, or the gas price of a legacy / access-list tx. */
export function feeCapOf(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? tx.maxFeePerGas : tx.gasPrice;
}

/** The most the tip can be per gas. */
export function tipCapOf(tx: TypedTransaction): bigint {
  return 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : tx.gasPrice;
}

/** What the price per gas comes to under a base fee: min(tip + base fee, fee cap). */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  const withTip = tipCapOf(tx) + baseFee;
  const cap = feeCapOf(tx);
  return withTip < cap ? withTip : cap;
}

/** gas × fee cap + value: what the sender must hold for the tx. */
export function costOf(tx: TypedTransaction): bigint {
  return tx.gasLimit * feeCapOf(tx) + tx.value;
}

/** The rejection of an envelope the decoder refused. */
export function refusalRejection(reason: string): TxRejection {
  if (reason === 'transaction type not supported') return { code: Code.notSupported, log: reason };
  if (reason.includes('invalid chain id')) return { code: Code.invalidChainId, log: reason };
  if (reason.startsWith('invalid sender')) return { code: Code.unauthorized, log: reason };
  if (reason.startsWith('max priority fee')) return { code: Code.insufficientFee, log: reason };
  return { code: Code.txDecode, log: reason };
}
