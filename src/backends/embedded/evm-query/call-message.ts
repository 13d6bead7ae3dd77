/**
 * A call's arguments (go-ethereum's TransactionArgs) as the unsigned transaction the VM runs for
 * eth_call, eth_estimateGas and debug_traceCall, following go-ethereum's ToMessage: gas defaults to the
 * block gas limit and is capped by the RPC gas cap; with no fee fields the call pays nothing and runs
 * with a zero base fee (go-ethereum's NoBaseFee), otherwise its fees must cover the base fee.
 */
import type { Common } from '@ethereumjs/common';
import { createTx, TransactionType, type AccessListBytes, type TypedTransaction } from '@ethereumjs/tx';
import { createAddressFromString, createZeroAddress, type Address } from '@ethereumjs/util';
import { ApplicationError } from '../../../rpc/errors';
import type { TransactionArgs } from '../../../evm-rpc/evm-types';
import type { BlockEnv } from '../../../devnet/app/evm/execution-context';
import { TIP_ABOVE_FEE_CAP } from '../../../devnet/app/evm/eth-tx';
import { fromHex, toChecksumAddress } from '../../../devnet/app/evm/hex';

export interface CallMessage {
  tx: TypedTransaction;
  from: Address;
  /** The block the call runs in (base fee 0 when the call pays no fees). */
  env: BlockEnv;
  /** The most per gas the caller may pay: what its balance must cover. */
  feeCap: bigint;
}

/** The call's sender: `from`, or the zero address. */
export function senderOf(args: TransactionArgs): Address {
  return args.from === undefined ? createZeroAddress() : createAddressFromString(args.from);
}

/** Fills in what the args leave out; `gas` is the limit to run with, `nonce` the sender's. */
export function callMessage(args: TransactionArgs, common: Common, env: BlockEnv, gas: bigint, nonce: bigint): CallMessage {
  if (args.gasPrice !== undefined && (args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined)) {
    throw new ApplicationError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
  }
  const from = senderOf(args);
  const dynamicFee = args.maxFeePerGas !== undefined || args.maxPriorityFeePerGas !== undefined;
  const feeCap = dynamicFee ? (args.maxFeePerGas ?? 0n) : (args.gasPrice ?? 0n);
  const tipCap = dynamicFee ? (args.maxPriorityFeePerGas ?? 0n) : feeCap;
  if (tipCap > feeCap) throw new ApplicationError(`${TIP_ABOVE_FEE_CAP}: address ${toChecksumAddress(from.bytes)}, maxPriorityFeePerGas: ${tipCap}, maxFeePerGas: ${feeCap}`);
  const paysFees = feeCap > 0n || tipCap > 0n;
  if (paysFees && feeCap < env.baseFee) {
    const field = dynamicFee ? 'maxFeePerGas' : 'gasPrice';
    throw new ApplicationError(`max fee per gas less than block base fee: address ${toChecksumAddress(from.bytes)}, ${field}: ${feeCap}, baseFee: ${env.baseFee}`);
  }
  const options = { common, freeze: false };
  const base = {
    nonce,
    gasLimit: gas,
    to: args.to === undefined || args.to === null ? undefined : createAddressFromString(args.to),
    value: args.value ?? 0n,
    data: fromHex(args.input ?? '0x'),
  };
  const accessList: AccessListBytes = args.accessList?.map((item) => [fromHex(item.address), item.storageKeys.map(fromHex)]) ?? [];
  const chainId = common.chainId();
  let tx: TypedTransaction;
  if (dynamicFee) {
    tx = createTx({ ...base, type: TransactionType.FeeMarketEIP1559, chainId, accessList, maxFeePerGas: feeCap, maxPriorityFeePerGas: tipCap }, options);
  } else if (args.accessList !== undefined) {
    tx = createTx({ ...base, type: TransactionType.AccessListEIP2930, chainId, accessList, gasPrice: feeCap }, options);
  } else {
    tx = createTx({ ...base, type: TransactionType.Legacy, gasPrice: feeCap }, options);
  }
  // The VM asks the tx for its sender; a call has no signature, only the `from` it names.
  Object.defineProperty(tx, 'getSenderAddress', { value: () => from });
  return { tx, from, env: paysFees ? env : { ...env, baseFee: 0n }, feeCap };
}

/** The gas a call runs with: its own gas or the block gas limit, at most the gas cap (0 = none). */
export function callGas(args: TransactionArgs, blockGasLimit: bigint, gasCap: bigint): bigint {
  const gas = args.gas ?? blockGasLimit;
  return gasCap > 0n && gas > gasCap ? gasCap : gas;
}
