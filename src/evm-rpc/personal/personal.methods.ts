import { Injectable } from '@nestjs/common';
import { ApplicationError } from '../../rpc/errors';
import type { MethodSpec, ParamSpec } from '../../rpc/method-spec';
import { DevKeystore } from '../accounts/dev-keystore';
import { recoverTextSigner, signText } from '../accounts/signatures';
import { TransactionSubmitter } from '../accounts/transaction-submitter';
import { param, type MethodTable } from '../core/evm-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

const NO_SMARTCARDS = 'smartcard wallet not supported yet';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** personal: the dev keystore's accounts, passwords and password-authorised signing. */
@Injectable()
export class PersonalMethods implements MethodTable {
  constructor(
    private readonly keystore: DevKeystore,
    private readonly submitter: TransactionSubmitter,
  ) {}

  methods(): MethodSpec[] {
    const keys = this.keystore;
    const group = 'personal';
    const smartcardOnly = (name: string, params: ParamSpec[]): MethodSpec => ({
      group,
      name,
      params,
      handler: () => {
        throw new ApplicationError(NO_SMARTCARDS);
      },
    });
    return [
      { group, name: 'personal_listAccounts', params: [], handler: () => keys.addresses() },
      { group, name: 'personal_listWallets', params: [], handler: () => this.wallets() },
      { group, name: 'personal_newAccount', params: [param('password', 'string')], handler: (a: A) => keys.create(a.password) },
      {
        group,
        name: 'personal_importRawKey',
        params: [param('privateKey', 'string'), param('password', 'string')],
        handler: (a: A) => keys.importKey(a.privateKey, a.password),
      },
      {
        group,
        name: 'personal_unlockAccount',
        params: [param('address', 'address'), param('password', 'string'), param('duration', 'uint64Number', true)],
        handler: (a: A) => keys.unlock(a.address, a.password, a.duration),
      },
      { group, name: 'personal_lockAccount', params: [param('address', 'address')], handler: (a: A) => keys.lock(a.address) },
      {
        group,
        name: 'personal_sendTransaction',
        params: [param('args', 'transactionArgs'), param('password', 'string')],
        handler: async (a: A) => this.submitter.signAndSubmit(a.args, await keys.walletWithPassword(a.args.from ?? ZERO_ADDRESS, a.password)),
      },
      {
        group,
        name: 'personal_sign',
        // Without the password (as ethers and viem send it) the account must be unlocked, as for eth_sign.
        params: [param('data', 'data'), param('address', 'address'), param('password', 'string', true)],
        handler: async (a: A) =>
          signText(a.password === undefined ? await keys.unlockedWallet(a.address) : await keys.walletWithPassword(a.address, a.password), a.data),
      },
      {
        group,
        name: 'personal_ecRecover',
        params: [param('data', 'data'), param('signature', 'data')],
        idempotent: true,
        handler: (a: A) => recoverTextSigner(a.data, a.signature),
      },
      smartcardOnly('personal_unpair', [param('url', 'string'), param('pin', 'string')]),
      smartcardOnly('personal_initializeWallet', [param('url', 'string')]),
    ];
  }

  /** go-ethereum's wallet list: one keystore wallet per account, with its lock status. */
  private async wallets(): Promise<unknown[]> {
    const wallets = [];
    for (const address of await this.keystore.addresses()) {
      const url = `keystore://${address}`;
      wallets.push({ url, status: (await this.keystore.isUnlocked(address)) ? 'Unlocked' : 'Locked', accounts: [{ address, url }] });
    }
    return wallets;
  }
}
