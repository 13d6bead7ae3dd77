/**
 * eth_getProof (EIP-1186): the account's Merkle-Patricia proof against the state root of the block
 * (the block's `stateRoot`), and one proof per storage key against the account's storage root.
 * Keys are echoed as given; values are quantities.
 */
import { getMerkleStateProof, type MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToBigInt, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import type { JsonObject } from '../../../rpc/json';
import { fromHex, quantity } from '../../../devnet/app/evm/hex';

export async function accountProof(state: MerkleStateManager, address: string, storageKeys: readonly string[]): Promise<JsonObject> {
  const addr = createAddressFromString(address);
  const slots = storageKeys.map((key) => setLengthLeft(fromHex(key), 32));
  const account = await state.getAccount(addr);
  const proof = await getMerkleStateProof(state, addr, account === undefined ? [] : slots);
  const storageProof =
    account === undefined
      ? storageKeys.map((key) => ({ key, value: '0x0', proof: [] }))
      : proof.storageProof.map((item, i) => ({ key: storageKeys[i], value: quantity(bytesToBigInt(hexToBytes(item.value))), proof: item.proof }));
  return {
    address: address.toLowerCase(),
    accountProof: proof.accountProof,
    balance: proof.balance,
    codeHash: proof.codeHash,
    nonce: proof.nonce,
    storageHash: proof.storageHash,
    storageProof,
  };
}
