/** The devnet's EVM settings from the config: chain id, block gas limit and first base fee, as ethers sees them. */
import { JsonRpcProvider, Wallet } from 'ethers';
import { evmRpcFlags } from '../support/backends';
import { call, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { testProvider } from '../support/ethers-provider';

const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

let gw: TestGateway;
let provider: JsonRpcProvider;

beforeAll(async () => {
  gw = await startTestGateway({
    ...evmRpcFlags('eth,net,web3'),
    'devnet.block_time': '200ms',
    'devnet.evm_chain_id': '1337',
    'devnet.block_gas_limit': '12000000',
    'devnet.initial_base_fee': '7',
  });
  await waitForHeight(gw.url, 1);
  provider = testProvider(gw.evmHttpUrl!);
});

afterAll(async () => {
  provider?.destroy();
  await gw?.close();
});

it('serves the configured chain id, gas limit and base fee', async () => {
  expect((await provider.getNetwork()).chainId).toBe(1337n);
  expect(await provider.send('net_version', [])).toBe('1337');
  const first = await provider.getBlock(1);
  expect(first!.gasLimit).toBe(12_000_000n);
  expect(first!.baseFeePerGas).toBe(7n);
  const genesis = (await call(gw.url, 'genesis')).genesis;
  expect(genesis.consensus_params.block.max_gas).toBe('12000000');
});

it('accepts a transaction signed for that chain id', async () => {
  const wallet = new Wallet(DEV_KEY, provider);
  const receipt = await (await wallet.sendTransaction({ to: wallet.address, value: 1n })).wait();
  expect(receipt!.status).toBe(1);
  const tx = await provider.getTransaction(receipt!.hash);
  expect(tx!.chainId).toBe(1337n);
});
