/**
 * Every node RPC route over every transport that serves it: URI (GET /method?…), JSON-RPC over HTTP
 * (POST /) and JSON-RPC over WebSocket, against the embedded devnet.
 */
import { call, get, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { WsClient } from '../support/ws-client';

let gw: TestGateway;
let ws: WsClient;
let txHashB64: string;
let txHashHex: string;
let blockHashHex: string;

beforeAll(async () => {
  gw = await startTestGateway({ 'rpc.unsafe': 'true' });
  await waitForHeight(gw.url, 2);
  const tx = Buffer.from('route=check').toString('base64');
  const committed = await call(gw.url, 'broadcast_tx_commit', { tx });
  txHashHex = committed.hash;
  txHashB64 = Buffer.from(txHashHex, 'hex').toString('base64');
  blockHashHex = (await call(gw.url, 'block', { height: '1' })).block_id.hash;
  ws = await WsClient.open(gw.wsUrl);
});

afterAll(async () => {
  await ws?.close();
  await gw?.close();
});

const isIntString = (v: unknown) => typeof v === 'string' && /^-?\d+$/.test(v);
const isHex = (v: unknown) => typeof v === 'string' && /^[0-9A-F]*$/.test(v);

interface Route {
  method: string;
  uri: () => string;
  json: () => Record<string, unknown>;
  check: (result: any) => void;
}

const tx = (s: string) => Buffer.from(s).toString('base64');
let nonce = 0;
const fresh = () => `k${Date.now()}${nonce++}=v`;

const routes: Route[] = [
  { method: 'health', uri: () => '', json: () => ({}), check: (r) => expect(r).toEqual({}) },
  {
    method: 'status',
    uri: () => '',
    json: () => ({}),
    check: (r) => {
      expect(r.node_info.network).toBe('rpcgw-devnet-1');
      expect(isIntString(r.sync_info.latest_block_height)).toBe(true);
      expect(isHex(r.sync_info.latest_block_hash)).toBe(true);
      expect(r.sync_info.catching_up).toBe(false);
      expect(r.validator_info.pub_key.type).toBe('tendermint/PubKeyEd25519');
    },
  },
  { method: 'net_info', uri: () => '', json: () => ({}), check: (r) => expect(r).toMatchObject({ listening: true, n_peers: '0', peers: [] }) },
  {
    method: 'blockchain',
    uri: () => 'minHeight=1&maxHeight=2',
    json: () => ({ minHeight: '1', maxHeight: '2' }),
    check: (r) => {
      expect(r.block_metas.map((m: any) => m.header.height)).toEqual(['2', '1']);
      expect(isIntString(r.last_height)).toBe(true);
    },
  },
  { method: 'genesis', uri: () => '', json: () => ({}), check: (r) => expect(r.genesis.chain_id).toBe('rpcgw-devnet-1') },
  {
    method: 'genesis_chunked',
    uri: () => 'chunk=0',
    json: () => ({ chunk: '0' }),
    check: (r) => {
      expect(r).toMatchObject({ chunk: '0', total: '1' });
      expect(JSON.parse(Buffer.from(r.data, 'base64').toString()).chain_id).toBe('rpcgw-devnet-1');
    },
  },
  { method: 'block', uri: () => 'height=1', json: () => ({ height: '1' }), check: (r) => expect(r.block.header.height).toBe('1') },
  {
    method: 'block_by_hash',
    uri: () => `hash=0x${blockHashHex}`,
    json: () => ({ hash: Buffer.from(blockHashHex, 'hex').toString('base64') }),
    check: (r) => expect(r.block_id.hash).toBe(blockHashHex),
  },
  { method: 'block_results', uri: () => 'height=1', json: () => ({ height: '1' }), check: (r) => expect(r.height).toBe('1') },
  {
    method: 'commit',
    uri: () => 'height=1',
    json: () => ({ height: '1' }),
    check: (r) => {
      expect(r.signed_header.header.height).toBe('1');
      expect(r.signed_header.commit.signatures[0].block_id_flag).toBe(2);
      expect(r.canonical).toBe(true);
    },
  },
  { method: 'header', uri: () => 'height=1', json: () => ({ height: '1' }), check: (r) => expect(r.header.height).toBe('1') },
  {
    method: 'header_by_hash',
    uri: () => `hash=0x${blockHashHex}`,
    json: () => ({ hash: blockHashHex }),
    check: (r) => expect(r.header.height).toBe('1'),
  },
  {
    method: 'validators',
    uri: () => 'height=1',
    json: () => ({ height: '1' }),
    check: (r) => expect(r).toMatchObject({ block_height: '1', count: '1', total: '1' }),
  },
  { method: 'dump_consensus_state', uri: () => '', json: () => ({}), check: (r) => expect(r.round_state).toBeDefined() },
  { method: 'consensus_state', uri: () => '', json: () => ({}), check: (r) => expect(r.round_state['height/round/step']).toMatch(/^\d+\/\d+\/\d+$/) },
  { method: 'consensus_params', uri: () => 'height=1', json: () => ({ height: '1' }), check: (r) => expect(r.block_height).toBe('1') },
  { method: 'unconfirmed_txs', uri: () => 'limit=5', json: () => ({ limit: '5' }), check: (r) => expect(isIntString(r.n_txs)).toBe(true) },
  { method: 'num_unconfirmed_txs', uri: () => '', json: () => ({}), check: (r) => expect(r.txs).toBeNull() },
  {
    method: 'tx',
    uri: () => `hash=0x${txHashHex}&prove=true`,
    json: () => ({ hash: txHashB64, prove: true }),
    check: (r) => {
      expect(r.hash).toBe(txHashHex);
      expect(r.proof.root_hash).toMatch(/^[0-9A-F]{64}$/);
    },
  },
  {
    method: 'tx_search',
    uri: () => `query="tx.hash='${txHashHex}'"`,
    json: () => ({ query: `tx.hash='${txHashHex}'` }),
    check: (r) => expect(r).toMatchObject({ total_count: '1', txs: [{ hash: txHashHex }] }),
  },
  {
    method: 'block_search',
    uri: () => `query="block.height=1"`,
    json: () => ({ query: 'block.height=1' }),
    check: (r) => expect(r).toMatchObject({ total_count: '1', blocks: [{ block: { header: { height: '1' } } }] }),
  },
  {
    method: 'check_tx',
    uri: () => `tx="${fresh()}"`,
    json: () => ({ tx: tx(fresh()) }),
    check: (r) => expect(r).toMatchObject({ code: 0, gas_wanted: '1' }),
  },
  {
    method: 'broadcast_tx_async',
    uri: () => `tx="${fresh()}"`,
    json: () => ({ tx: tx(fresh()) }),
    check: (r) => expect(r).toMatchObject({ code: 0, data: '', log: '', codespace: '', hash: expect.stringMatching(/^[0-9A-F]{64}$/) }),
  },
  {
    method: 'broadcast_tx_sync',
    uri: () => `tx="${fresh()}"`,
    json: () => ({ tx: tx(fresh()) }),
    check: (r) => expect(r).toMatchObject({ code: 0, hash: expect.stringMatching(/^[0-9A-F]{64}$/) }),
  },
  {
    method: 'broadcast_tx_commit',
    uri: () => `tx="${fresh()}"`,
    json: () => ({ tx: tx(fresh()) }),
    check: (r) => {
      expect(r.check_tx.code).toBe(0);
      expect(r.tx_result.code).toBe(0);
      expect(Number(r.height)).toBeGreaterThan(0);
    },
  },
  { method: 'abci_info', uri: () => '', json: () => ({}), check: (r) => expect(isIntString(r.response.last_block_height)).toBe(true) },
  {
    method: 'abci_query',
    uri: () => `data="route"`,
    json: () => ({ data: Buffer.from('route').toString('hex') }),
    check: (r) => {
      expect(r.response.log).toBe('exists');
      expect(Buffer.from(r.response.value, 'base64').toString()).toBe('check');
    },
  },
  {
    method: 'dial_seeds',
    uri: () => `seeds=["f9baeaa15fedf5e1ef7448dd60f46c01f1a9e9c4@127.0.0.1:26656"]`,
    json: () => ({ seeds: ['f9baeaa15fedf5e1ef7448dd60f46c01f1a9e9c4@127.0.0.1:26656'] }),
    check: (r) => expect(r.log).toBe('Dialing seeds in progress. See /net_info for details'),
  },
  {
    method: 'dial_peers',
    uri: () => `peers=["f9baeaa15fedf5e1ef7448dd60f46c01f1a9e9c4@127.0.0.1:26656"]&persistent=false`,
    json: () => ({ peers: ['f9baeaa15fedf5e1ef7448dd60f46c01f1a9e9c4@127.0.0.1:26656'], persistent: false }),
    check: (r) => expect(r.log).toBe('Dialing peers in progress. See /net_info for details'),
  },
  { method: 'unsafe_flush_mempool', uri: () => '', json: () => ({}), check: (r) => expect(r).toEqual({}) },
];

describe.each(routes)('$method', (route) => {
  it('answers over URI', async () => {
    const query = route.uri();
    const res = await get(gw.url, `/${route.method}${query ? '?' + query : ''}`);
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(-1);
    route.check(res.json.result);
  });

  it('answers over JSON-RPC (POST /)', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 7, method: route.method, params: route.json() });
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(7);
    expect(res.json.error).toBeUndefined();
    route.check(res.json.result);
  });

  it('answers over WebSocket', async () => {
    const reply = await ws.call(`${route.method}-ws`, route.method, route.json());
    expect(reply.error).toBeUndefined();
    route.check(reply.result);
  });
});

describe('broadcast_evidence', () => {
  it('rejects missing evidence on every transport', async () => {
    const uri = await get(gw.url, '/broadcast_evidence');
    expect(uri.status).toBe(500);
    expect(uri.json.error).toEqual({ code: -32603, message: 'Internal error', data: 'no evidence was provided' });
    const http = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'broadcast_evidence', params: {} });
    expect(http.json.error.data).toBe('no evidence was provided');
    const wsReply = await ws.call('ev', 'broadcast_evidence', {});
    expect(wsReply.error.data).toBe('no evidence was provided');
  });

  it('rejects evidence that does not verify', async () => {
    const evidence = { type: 'tendermint/DuplicateVoteEvidence', value: { vote_a: null, vote_b: null } };
    const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'broadcast_evidence', params: { evidence } });
    expect(res.json.error.code).toBe(-32603);
    expect(res.json.error.data).toMatch(/^(evidence\.ValidateBasic failed|failed to add evidence)/);
  });
});

describe('subscriptions (WebSocket only)', () => {
  it('subscribe, receive NewBlock, unsubscribe, unsubscribe_all', async () => {
    const client = await WsClient.open(gw.wsUrl);
    const ack = await client.call(1, 'subscribe', { query: "tm.event='NewBlock'" });
    expect(ack).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const ev = await client.next((m) => m.id === 1 && m.result?.query === "tm.event='NewBlock'");
    expect(ev.result.data.type).toBe('tendermint/event/NewBlock');
    expect(ev.result.events['tm.event']).toEqual(['NewBlock']);
    expect(await client.call(2, 'unsubscribe', { query: "tm.event = 'NewBlock'" })).toMatchObject({ result: {} });
    expect(await client.call(3, 'subscribe', { query: "tm.event='NewBlockHeader'" })).toMatchObject({ result: {} });
    expect(await client.call(4, 'unsubscribe_all', {})).toMatchObject({ result: {} });
    expect((await client.call(5, 'unsubscribe_all', {})).error.data).toBe('subscription not found');
    await client.close();
  });
});
