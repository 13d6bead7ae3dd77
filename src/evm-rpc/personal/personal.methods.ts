import { Injectable } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { ApplicationError } from '../../rpc/errors';
import { defineMethod, optional, param, type AnyMethod, type Params } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import { DevKeystore } from '../accounts/dev-keystore';
import { requireInsecureUnlock } from '../accounts/insecure-unlock';
import { recoverTextSigner, signText } from '../accounts/signatures';
import { TransactionSubmitter } from '../accounts/transaction-submitter';
import * as c from '../codec/codecs';

const NO_SMARTCARDS = 'smartcard wallet not supported yet';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** personal: the dev keystore's accounts, passwords and password-authorised signing. */
@Injectable()
export class PersonalMethods implements MethodSource {
  constructor(
    private readonly keystore: DevKeystore,
    private readonly submitter: TransactionSubmitter,
    private readonly config: GatewayConfigService,
  ) {}

  methods(): AnyMethod[] {
    const keys = this.keystore;
    const group = 'personal';
    const smartcardOnly = (name: string, params: Params): AnyMethod =>
      defineMethod({
        group,
        name,
        params,
        handler: () => {
          throw new ApplicationError(NO_SMARTCARDS);
        },
      });
    return [
      defineMethod({
        group,
        name: 'personal_listAccounts',
        params: [],
        handler: () => {
          requireInsecureUnlock(this.config.jsonRpc);
          return keys.addresses();
        },
      }),
      defineMethod({ group, name: 'personal_listWallets', params: [], handler: () => this.wallets() }),
      defineMethod({ group, name: 'personal_newAccount', params: [param('password', c.string)], handler: (a) => keys.create(a.password) }),
      defineMethod({
        group,
        name: 'personal_importRawKey',
        params: [param('privateKey', c.string), param('password', c.string)],
        handler: (a) => keys.importKey(a.privateKey, a.password),
      }),
      defineMethod({
        group,
        name: 'personal_unlockAccount',
        params: [param('address', c.address), param('password', c.string), optional('duration', c.uint64Number)],
        handler: (a) => keys.unlock(a.address, a.password, a.duration),
      }),
      defineMethod({ group, name: 'personal_lockAccount', params: [param('address', c.address)], handler: (a) => keys.lock(a.address) }),
      defineMethod({
        group,
        name: 'personal_sendTransaction',
        params: [param('args', c.transactionArgs), param('password', c.string)],
        handler: async (a) => {
          requireInsecureUnlock(this.config.jsonRpc);
          return this.submitter.signAndSubmit(a.args, await keys.walletWithPassword(a.args.from ?? ZERO_ADDRESS, a.password));
        },
      }),
      defineMethod({
        group,
        name: 'personal_sign',
        // Without the password (as ethers and viem send it) the account must be unlocked, as for eth_sign.
        params: [param('data', c.data), param('address', c.address), optional('password', c.string)],
        handler: async (a) =>
          signText(a.password === undefined ? await keys.unlockedWallet(a.address) : await keys.walletWithPassword(a.address, a.password), a.data),
      }),
      defineMethod({
        group,
        name: 'personal_ecRecover',
        params: [param('data', c.data), param('signature', c.data)],
        idempotent: true,
        handler: (a) => recoverTextSigner(a.data, a.signature),
      }),
      smartcardOnly('personal_unpair', [param('url', c.string), param('pin', c.string)]),
      smartcardOnly('personal_initializeWallet', [param('url', c.string)]),
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
