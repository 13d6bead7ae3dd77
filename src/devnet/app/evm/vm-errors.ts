/** ethereumjs EVM errors in go-ethereum's words (core/vm/errors.go), and Solidity revert reasons. */
import type { EVMError } from '@ethereumjs/evm';
import { AbiCoder } from 'ethers';

const GETH_TEXTS: Record<string, string> = {
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'stack underflow': 'stack underflow',
  'stack overflow': 'stack limit reached 1024',
  'invalid JUMP': 'invalid jump destination',
  'invalid opcode': 'invalid opcode',
  'value out of range': 'return data out of bounds',
  revert: 'execution reverted',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'value overflow': 'gas uint64 overflow',
  'refund exhausted': 'refund counter below zero',
};

export const EXECUTION_REVERTED = 'execution reverted';

export function vmErrorText(error: EVMError): string {
  return GETH_TEXTS[error.error] ?? error.error;
}

export function isRevert(error: EVMError | undefined): boolean {
  return error?.error === 'revert';
}

/** Error(string)'s selector. */
const ERROR_SELECTOR = '08c379a0';

/** The message of a Solidity `Error(string)` revert, if the data is one. */
export function revertReason(data: Uint8Array): string | undefined {
  if (data.length < 4 || Buffer.from(data.subarray(0, 4)).toString('hex') !== ERROR_SELECTOR) return undefined;
  try {
    const [reason] = AbiCoder.defaultAbiCoder().decode(['string'], data.subarray(4));
    return String(reason);
  } catch {
    return undefined;
  }
}

/** `execution reverted` or `execution reverted: <reason>`, as go-ethereum's revert error reads. */
export function revertMessage(data: Uint8Array): string {
  const reason = revertReason(data);
  return reason === undefined ? EXECUTION_REVERTED : `${EXECUTION_REVERTED}: ${reason}`;
}
