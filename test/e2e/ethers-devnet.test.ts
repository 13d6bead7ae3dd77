/**
 * ethers drives the whole gateway, over the embedded devnet and in upstream mode in front of one:
 * deploy a solc-compiled contract, call it, read its logs by filter, by eth_getLogs and by a `logs`
 * subscription, wait for receipts, and see `newHeads` every block; the node block and the EVM block
 * at a height are one block.
 */
import { ContractFactory, JsonRpcProvider, keccak256, WebSocketProvider, Wallet, type Contract, type Log } from 'ethers';
import { compileProbe } from '../unit/embedded/evm-harness';
import { BACKENDS, evmRpcFlags, startGatewayOver } from '../support/backends';
import { call, waitForHeight, type TestGateway } from '../support/gateway';
import { testProvider } from '../support/ethers-provider';

/** The first account of the well-known development mnemonic, prefunded by the devnet. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

describe.each(BACKENDS)('over the %s backend', (kind) => {
  let gw: TestGateway;
  let http: JsonRpcProvider;
  let ws: WebSocketProvider;
  let wallet: Wallet;
  let probe: Contract;

  beforeAll(async () => {
    gw = await startGatewayOver(kind, evmRpcFlags('eth,net,web3,debug'));
    await waitForHeight(gw.url, 1);
    http = testProvider(gw.evmHttpUrl!);
    ws = new WebSocketProvider(gw.evmWsUrl!);
    wallet = new Wallet(DEV_KEY, http);
    const { abi, bytecode } = compileProbe();
    const factory = new ContractFactory(abi, bytecode, wallet);
    probe = (await factory.deploy(7n)) as Contract;
    await probe.waitForDeployment();
  }, 60_000);

  afterAll(async () => {
    await ws?.destroy();
    http?.destroy();
    await gw?.close();
  });

  it('serves the chain id and the dev account’s balance', async () => {
    expect((await http.getNetwork()).chainId).toBe(9000n);
    expect(await http.getBalance(wallet.address)).toBeGreaterThan(0n);
  });

  // eth_accounts lists the keys the gateway itself signs with: the embedded devnet hands it its funded
  // dev keys, an upstream node never hands out keys, so in upstream mode the list is empty.
  (kind === 'embedded' ? it : it.skip)('serves the dev accounts', async () => {
    const accounts: string[] = await http.send('eth_accounts', []);
    expect(accounts.map((a) => a.toLowerCase())).toContain(wallet.address.toLowerCase());
  });

  it('deploys, calls and reads a receipt with logs', async () => {
    expect(await probe.count()).toBe(7n);
    const tx = await probe.bump('hello');
    const receipt = await tx.wait();
    expect(receipt!.status).toBe(1);
    expect(await probe.count()).toBe(8n);
    const parsed = receipt!.logs.map((l: Log) => probe.interface.parseLog(l)!);
    expect(parsed[0].name).toBe('Counted');
    expect(parsed[0].args.note).toBe('hello');
  });

  it('reverts answer code 3 with the reason', async () => {
    await expect(probe.fail()).rejects.toMatchObject({ code: 'CALL_EXCEPTION' });
  });

  it('the node block and the EVM block at a height are the same block', async () => {
    const tx = await probe.bump('same-block');
    const receipt = (await tx.wait())!;
    const node = await call(gw.url, 'block', { height: String(receipt.blockNumber) });
    expect('0x' + node.block_id.hash.toLowerCase()).toBe(receipt.blockHash);
    const raw = Buffer.from(node.block.data.txs[0], 'base64');
    expect(keccak256(raw)).toBe(receipt.hash);
  });

  it('logs arrive by filter, by eth_getLogs and by a logs subscription', async () => {
    const address = await probe.getAddress();
    const filterId: string = await http.send('eth_newFilter', [{ address }]);
    const received = new Promise<Log>((resolve) => {
      void ws.on({ address }, (log: Log) => resolve(log));
    });
    const receipt = (await (await probe.bump('watched')).wait())!;
    const viaSub = await received;
    expect(viaSub.transactionHash).toBe(receipt.hash);
    const changes: Array<{ transactionHash: string }> = await http.send('eth_getFilterChanges', [filterId]);
    expect(changes.map((l) => l.transactionHash)).toContain(receipt.hash);
    const logs = await http.getLogs({ address, fromBlock: receipt.blockNumber, toBlock: receipt.blockNumber });
    expect(logs).toHaveLength(1);
    expect(logs[0].transactionHash).toBe(receipt.hash);
  });

  it('newHeads arrive every block', async () => {
    const heads: number[] = [];
    await new Promise<void>((resolve) => {
      void ws.on('block', (n: number) => {
        heads.push(n);
        if (heads.length === 3) resolve();
      });
    });
    await ws.off('block');
    expect(heads[1]).toBe(heads[0] + 1);
    expect(heads[2]).toBe(heads[1] + 1);
  });

  it('debug_traceTransaction with callTracer', async () => {
    const receipt = (await (await probe.bump('traced')).wait())!;
    const trace = await http.send('debug_traceTransaction', [receipt.hash, { tracer: 'callTracer' }]);
    expect(trace.type).toBe('CALL');
    expect(trace.to.toLowerCase()).toBe((await probe.getAddress()).toLowerCase());
  });

  it('a disabled namespace is unreachable', async () => {
    await expect(http.send('personal_listAccounts', [])).rejects.toThrow(/the method personal_listAccounts does not exist\/is not available/);
  });
});
