/** Opens the EVM world state at a state root, over the devnet's trie nodes. */
import type { Common } from '@ethereumjs/common';
import { createMPT } from '@ethereumjs/mpt';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import type { DB } from '@ethereumjs/util';

export async function openWorldState(db: DB<string, string | Uint8Array>, root: Uint8Array, common: Common): Promise<MerkleStateManager> {
  const trie = await createMPT({ db, root, useKeyHashing: true, common });
  return new MerkleStateManager({ trie, common });
}
