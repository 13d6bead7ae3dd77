/**
 * The development accounts: the first ten of the well-known mnemonic anvil and hardhat use
 * (m/44'/60'/0'/0/i), each funded with 10000 ETH at genesis.
 */
import { HDNodeWallet } from 'ethers';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEV_ACCOUNT_COUNT = 10;
export const DEV_ACCOUNT_BALANCE = 10_000n * 10n ** 18n;

const DERIVATION_PARENT = "m/44'/60'/0'/0";

export interface DevAccount {
  /** Lower-case 0x address. */
  address: string;
  privateKey: Uint8Array;
}

let derived: readonly DevAccount[] | undefined;

export function devAccounts(): readonly DevAccount[] {
  if (derived === undefined) {
    const parent = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, DERIVATION_PARENT);
    derived = Array.from({ length: DEV_ACCOUNT_COUNT }, (_, i) => {
      const wallet = parent.deriveChild(i);
      return { address: wallet.address.toLowerCase(), privateKey: new Uint8Array(Buffer.from(wallet.privateKey.slice(2), 'hex')) };
    });
  }
  return derived;
}
