/**
 * What the devnet's address index answers: an address's mined transactions page by page (Otterscan's
 * order and page flags), a sender's transaction by nonce, and a contract's creator. Only blocks up to
 * the head are seen (a block's index entries are written with it, just before it becomes the head).
 */
import { createAddressFromString, equalsBytes, KECCAK256_NULL } from '@ethereumjs/util';
import type { AddressHistoryIndex, AddressTransactionsPage, ContractCreator, SearchDirection } from '../../backend-services';
import { fromHex } from '../../../devnet/app/evm/hex';
import type { EvmChainView } from './chain-view';

export class AddressHistory implements AddressHistoryIndex {
  constructor(private readonly chain: EvmChainView) {}

  /**
   * `before`: blocks below `fromBlock` (0: from the head), the first page when searching from the
   * head, the last when nothing older is left. `after`: blocks above `fromBlock` (0: from the first
   * block), the last page when searching from the start, the first when nothing newer is left; its
   * transactions, found oldest first, are answered latest first like every page.
   */
  async transactions(address: string, fromBlock: bigint, direction: SearchDirection, pageSize: number): Promise<AddressTransactionsPage> {
    const from = fromBlock === 0n ? undefined : fromBlock;
    const { txs, more } = await this.chain.evm.addresses.page(address, direction, from, pageSize, this.chain.head);
    const hashes = txs.map((tx) => tx.hash);
    if (direction === 'before') return { hashes, firstPage: from === undefined, lastPage: !more };
    return { hashes: hashes.reverse(), firstPage: !more, lastPage: from === undefined };
  }

  async bySenderAndNonce(sender: string, nonce: bigint): Promise<string | null> {
    const hash = await this.chain.evm.addresses.bySenderAndNonce(sender, nonce);
    if (hash === undefined) return null;
    const location = await this.chain.evm.chain.locate(fromHex(hash));
    return location !== undefined && location.height <= this.chain.head ? hash : null;
  }

  /** Null for an address without code in the latest state, as for one the index never saw created. */
  async contractCreator(address: string): Promise<ContractCreator | null> {
    if (this.chain.head === 0n) return null;
    const state = await this.chain.stateAfter(this.chain.head);
    const account = await state.getAccount(createAddressFromString(address));
    if (account === undefined || equalsBytes(account.codeHash, KECCAK256_NULL)) return null;
    const creation = await this.chain.evm.addresses.creation(address);
    return creation === undefined ? null : { hash: creation.hash, creator: creation.creator };
  }
}
