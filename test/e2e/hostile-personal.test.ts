/**
 * Issue 24, finding 10: with `personal` served, a caller cannot grow the shared keystore without bound:
 * personal_newAccount and personal_importRawKey add at most MAX_ADDED_ACCOUNTS accounts, all callers
 * together. Over real sockets on the embedded devnet.
 */
import { Wallet } from 'ethers';
import { MAX_ADDED_ACCOUNTS } from '../../src/evm-rpc/accounts/dev-keystore';
import { evmRpcFlags } from '../support/backends';
import { post, startTestGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway(evmRpcFlags('eth,net,web3,personal'));
});

afterAll(async () => {
  await gw?.close();
});

async function rpc(method: string, params: unknown[]): Promise<any> {
  return (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method, params })).json;
}

it('personal_newAccount and personal_importRawKey stop at the cap, and the keystore stays as it was', async () => {
  const TOO_MANY = { code: -32000, message: `too many accounts: at most ${MAX_ADDED_ACCOUNTS} can be created or imported` };
  const key = Wallet.createRandom();
  expect((await rpc('personal_importRawKey', [key.privateKey.slice(2), 'pw'])).result).toBe(key.address.toLowerCase());
  for (let i = 1; i < MAX_ADDED_ACCOUNTS; i++) expect((await rpc('personal_newAccount', ['pw'])).result).toMatch(/^0x[0-9a-f]{40}$/);
  const before = (await rpc('personal_listAccounts', [])).result;
  expect((await rpc('personal_newAccount', ['pw'])).error).toEqual(TOO_MANY);
  expect((await rpc('personal_importRawKey', [Wallet.createRandom().privateKey.slice(2), 'pw'])).error).toEqual(TOO_MANY);
  expect((await rpc('personal_listAccounts', [])).result).toEqual(before);
  // The accounts there still work.
  expect((await rpc('personal_unlockAccount', [key.address.toLowerCase(), 'pw', 1])).result).toBe(true);
});
