import { EventBus, type BusEvent } from '../../../src/events';
import { blockLine, followBlocks } from '../../../src/logging/block-lines';
import { renderBanner, type GatewaySummary } from '../../../src/logging/startup-banner';

const HASH = '913AB4B6E4243C8F1B0D6B1A1E3C9D4F5A6B7C8D9E0F1A2B3C4D5E6F7A8B9C0D';

function newBlock(height: number, txs: string[] = [], results: Array<{ code?: number; gas_used?: string }> = []): BusEvent {
  return {
    type: 'NewBlock',
    data: {
      type: 'tendermint/event/NewBlock',
      value: { block: { header: { height: String(height) }, data: { txs } }, block_id: { hash: HASH }, result_finalize_block: { tx_results: results } },
    },
    events: { 'tm.event': ['NewBlock'] },
  };
}

describe('block lines', () => {
  it('one line a block: height, txs, gas and the start of the hash', () => {
    expect(blockLine(newBlock(2))).toBe('block 2 · 0 txs · 0x913ab4b6e424…');
    expect(blockLine(newBlock(7, ['a'], [{ code: 0, gas_used: '21000' }]))).toBe('block 7 · 1 tx · gas 21000 · 0x913ab4b6e424…');
    expect(blockLine(newBlock(8, ['a', 'b'], [{ gas_used: '21000' }, { code: 2, gas_used: '0' }]))).toBe('block 8 · 2 txs (1 failed) · gas 21000 · 0x913ab4b6e424…');
    expect(blockLine({ type: 'NewBlock', data: {}, events: {} })).toBeUndefined();
  });

  it('follows the NewBlock events on the bus until stopped', async () => {
    const bus = new EventBus();
    const lines: string[] = [];
    const stop = followBlocks(bus, (line) => lines.push(line));
    bus.publish(newBlock(1));
    bus.publish({ type: 'Tx', data: {}, events: { 'tm.event': ['Tx'] } });
    bus.publish(newBlock(2));
    await new Promise((r) => setTimeout(r, 10));
    stop();
    bus.publish(newBlock(3));
    await new Promise((r) => setTimeout(r, 10));
    expect(lines).toEqual(['block 1 · 0 txs · 0x913ab4b6e424…', 'block 2 · 0 txs · 0x913ab4b6e424…']);
    expect(bus.numClients()).toBe(0);
  });
});

const base: GatewaySummary = {
  version: '1.2.3',
  backend: 'embedded',
  devnet: { follow: '', blockTimeMs: 1000, ephemeral: true },
  chainId: 'rpcgw-devnet-1',
  evmChainId: 9000n,
  nodeRpcUrls: ['http://127.0.0.1:26657'],
  evmHttpUrl: 'http://127.0.0.1:8545',
  evmWsUrl: 'ws://127.0.0.1:8546',
  evmApi: ['eth', 'net', 'web3'],
  metricsUrl: undefined,
  home: '/home/dev/.rpc-gateway',
  devAccounts: [
    {
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      balance: 10_000n * 10n ** 18n,
    },
  ],
  mnemonic: 'test test test test test test test test test test test junk',
  pools: [],
};

describe('renderBanner', () => {
  it('on the devnet: version, chain ids, endpoints, home, dev accounts with keys marked dev-only, the mnemonic', () => {
    const text = renderBanner(base, { color: false, readyMs: 1234 });
    expect(text).toContain('rpc-gateway 1.2.3 · ready in 1.2 s');
    expect(text).toMatch(/Backend +embedded devnet \(validator, a block every 1s, in memory\)/);
    expect(text).toMatch(/Chain ID +rpcgw-devnet-1 +EVM 9000 \(0x2328\)/);
    expect(text).toMatch(/Node RPC +http:\/\/127\.0\.0\.1:26657 +ws:\/\/127\.0\.0\.1:26657\/websocket/);
    expect(text).toMatch(/EVM RPC +http:\/\/127\.0\.0\.1:8545 +ws:\/\/127\.0\.0\.1:8546 +\(eth, net, web3\)/);
    expect(text).toMatch(/Metrics +off \(--instrumentation\.prometheus\)/);
    expect(text).toMatch(/Home +\/home\/dev\/\.rpc-gateway/);
    expect(text).toContain('Dev accounts (10000 ETH each)');
    expect(text).toContain('For development only');
    expect(text).toMatch(/\(0\) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 +key 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80/);
    expect(text).toMatch(/Mnemonic +test test test test test test test test test test test junk/);
    expect(text).not.toContain('\u001b[');
  });

  it('colours only when asked', () => {
    expect(renderBanner(base, { color: true })).toContain('\u001b[1mrpc-gateway 1.2.3\u001b[22m');
  });

  it('a follower says whom it follows', () => {
    expect(renderBanner({ ...base, devnet: { follow: 'http://10.0.0.1:26657', blockTimeMs: 1000, ephemeral: false } }, { color: false })).toMatch(
      /Backend +embedded devnet \(full node following http:\/\/10\.0\.0\.1:26657\)/,
    );
  });

  it('in upstream mode: each pool with the health of each upstream, and no accounts', () => {
    const text = renderBanner(
      {
        ...base,
        backend: 'upstream',
        devnet: undefined,
        devAccounts: [],
        mnemonic: undefined,
        metricsUrl: 'http://127.0.0.1:26660',
        pools: [
          {
            surface: 'node',
            head: '120',
            upstreams: [
              { name: 'a', url: 'https://node-a.example:443', healthy: true, height: '120', reason: '' },
              { name: 'bravo', url: 'http://10.0.0.2:26657', healthy: false, height: '0', reason: 'unreachable: ECONNREFUSED' },
            ],
          },
          { surface: 'evm', head: '120', upstreams: [{ name: 'geth', url: 'http://10.0.0.3:8545', healthy: true, height: '120', reason: '' }] },
        ],
      },
      { color: false },
    );
    expect(text).toMatch(/Backend +upstream nodes/);
    expect(text).toMatch(/Metrics +http:\/\/127\.0\.0\.1:26660\/metrics/);
    expect(text).toContain('Node RPC upstreams (head 120)');
    expect(text).toMatch(/up +a +https:\/\/node-a\.example:443 +height 120/);
    expect(text).toMatch(/down +bravo +http:\/\/10\.0\.0\.2:26657 +unreachable: ECONNREFUSED/);
    expect(text).toContain('EVM upstreams (head 120)');
    expect(text).toMatch(/up +geth +http:\/\/10\.0\.0\.3:8545 +height 120/);
    expect(text).not.toContain('Dev accounts');
    expect(text).not.toContain('Mnemonic');
  });

  it('says when the backend did not tell its chain id', () => {
    expect(renderBanner({ ...base, chainId: undefined, evmChainId: undefined }, { color: false })).toMatch(/Chain ID +unknown/);
  });
});
