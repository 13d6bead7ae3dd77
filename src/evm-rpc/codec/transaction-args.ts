import type { TransactionArgs } from '../evm-types';
import { ApplicationError } from '../../rpc/errors';
import { decodeData } from './data';
import { decodeAddress, decodeHash } from './fixed-bytes';
import { decodeSlice, goMembers, isObject, jsonKind, typeError, type GoField } from './go-json';
import { BIG, decodeQuantity, UINT64 } from './quantity';

/** TransactionArgs as sent: `data` (the older name) is kept apart from `input` until checked. */
export interface RpcTransactionArgs extends TransactionArgs {
  readonly data?: string;
}

type AccessList = NonNullable<TransactionArgs['accessList']>;

const STRUCT = 'TransactionArgs';

function decodeAccessList(value: unknown): AccessList {
  const at = (path: string): GoField => ({ struct: path === 'accessList' ? STRUCT : 'AccessTuple', path });
  return decodeSlice(
    value,
    'types.AccessList',
    (tuple) => {
      if (!isObject(tuple)) throw typeError(jsonKind(tuple), 'types.AccessTuple', at('accessList'));
      const members = goMembers(tuple);
      const address = members.get('address');
      return {
        address: decodeAddress(address === undefined ? '' : address, at('accessList.address')),
        storageKeys: decodeSlice(members.get('storagekeys') ?? null, '[]common.Hash', (key) => decodeHash(key, at('accessList.storageKeys')), at('accessList.storageKeys')),
      };
    },
    at('accessList'),
  );
}

/** Field decoders, by the lower-cased JSON name Go matches case-insensitively. */
const FIELDS: Record<string, { name: keyof RpcTransactionArgs; decode: (value: unknown, field: GoField) => unknown }> = {
  from: { name: 'from', decode: decodeAddress },
  to: { name: 'to', decode: decodeAddress },
  gas: { name: 'gas', decode: (v, f) => decodeQuantity(v, UINT64, f) },
  gasprice: { name: 'gasPrice', decode: (v, f) => decodeQuantity(v, BIG, f) },
  maxfeepergas: { name: 'maxFeePerGas', decode: (v, f) => decodeQuantity(v, BIG, f) },
  maxpriorityfeepergas: { name: 'maxPriorityFeePerGas', decode: (v, f) => decodeQuantity(v, BIG, f) },
  value: { name: 'value', decode: (v, f) => decodeQuantity(v, BIG, f) },
  nonce: { name: 'nonce', decode: (v, f) => decodeQuantity(v, UINT64, f) },
  data: { name: 'data', decode: decodeData },
  input: { name: 'input', decode: decodeData },
  accesslist: { name: 'accessList', decode: decodeAccessList },
  chainid: { name: 'chainId', decode: (v, f) => decodeQuantity(v, BIG, f) },
};

const JSON_NAMES: Record<string, string> = { gasprice: 'gasPrice', maxfeepergas: 'maxFeePerGas', maxpriorityfeepergas: 'maxPriorityFeePerGas', accesslist: 'accessList', chainid: 'chainId' };

/** Evmos' TransactionArgs object (all fields optional; null = absent; unknown fields ignored). */
export function decodeTransactionArgs(value: unknown): RpcTransactionArgs {
  if (value === null) return {};
  if (!isObject(value)) throw typeError(jsonKind(value), 'types.TransactionArgs');
  const args: Record<string, unknown> = {};
  for (const [key, member] of goMembers(value)) {
    const field = FIELDS[key];
    if (!field || member === null) continue;
    args[field.name] = field.decode(member, { struct: STRUCT, path: JSON_NAMES[key] ?? key });
  }
  return args as RpcTransactionArgs;
}

/** The args a backend takes: `input`, or `data` when only that is set; both differing is an error. */
export function toBackendArgs(args: RpcTransactionArgs): TransactionArgs {
  const { data, ...rest } = args;
  if (data !== undefined && args.input !== undefined && data !== args.input) {
    throw new ApplicationError('both "data" and "input" are set and not equal. Please use "input" to pass transaction call data');
  }
  return data === undefined ? rest : { ...rest, input: args.input ?? data };
}
