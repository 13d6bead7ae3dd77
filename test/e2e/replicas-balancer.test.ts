/**
 * Three replicas behave as one gateway behind round-robin balancers. Replicas A and B (in this process)
 * and C (a process of its own) run in upstream mode over an embedded devnet, with one Redis for filters
 * and caps; in front of them a per-request round robin (nginx where installed, else a Node one) and a
 * per-connection TCP round robin. Through them: filter-cap, max_filters_per_ip and
 * max_ws_connections_per_ip hold for the deployment; ethers v6 `contract.on`, viem `watchContractEvent`
 * and raw `eth_getFilterChanges` on a new connection per poll see every event of 30+ blocks once, none
 * more than two polls late, with no `not found`, while C is SIGKILLed mid-run; A and B go on serving
 * C's filters (changes and logs), a pending-transaction filter sees every tx, and one replica uninstalls
 * a filter for all.
 */
import { Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers';
import { compileProbe } from '../unit/embedded/evm-harness';
import { startRequestBalancer, startTcpRoundRobin, type Balancer } from '../support/balancers';
import { callOnNewConnection, watchWithEthers, watchWithViem, type EventWatcher, type RawAnswer } from '../support/event-watchers';
import { PipelineSocket } from '../support/raw-ws';
import { startReplicaSet, type ReplicaSet } from '../support/replica-set';
import { testProvider } from '../support/ethers-provider';

jest.setTimeout(300_000);

const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const POLL_MS = 250;
const EVENTS = 30;
const FILTER_CAP = 10;
const FILTERS_PER_IP = 4;
const WS_PER_IP = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const notFound = (messages: readonly string[]) => messages.filter((m) => /not found/.test(m)).length;

describe('three replicas behind round-robin balancers', () => {
  let set: ReplicaSet;
  let perRequest: Balancer;
  let perConnection: Balancer;
  let wsBalancer: Balancer;
  let probe: Contract;
  let wallet: Wallet;
  const sockets: PipelineSocket[] = [];

  beforeAll(async () => {
    set = await startReplicaSet({
      'json-rpc.filter-cap': String(FILTER_CAP),
      'limits.max_filters_per_ip': String(FILTERS_PER_IP),
      'limits.max_ws_connections_per_ip': String(WS_PER_IP),
      // The balancers are on this machine: X-Forwarded-For names the client.
      'access.trusted_proxies': '127.0.0.1/32',
    });
    const http = set.replicas.map((r) => r.evmHttpUrl);
    [perRequest, perConnection, wsBalancer] = await Promise.all([startRequestBalancer(http), startTcpRoundRobin(http), startTcpRoundRobin(set.replicas.map((r) => r.evmWsUrl))]);
    wallet = new Wallet(DEV_KEY, testProvider(set.devnet.evmHttpUrl!));
    const { abi, bytecode } = compileProbe();
    probe = (await new ContractFactory(abi, bytecode, wallet).deploy(0n)) as Contract;
    await probe.waitForDeployment();
  });

  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close().catch(() => undefined)));
    await Promise.all([perRequest, perConnection, wsBalancer].map((b) => b?.close()));
    (wallet?.provider as JsonRpcProvider | undefined)?.destroy();
    await set?.close();
  });

  it(`holds filter-cap ${FILTER_CAP} and max_filters_per_ip ${FILTERS_PER_IP} across the replicas`, async () => {
    const outcomes: Record<string, string[]> = {};
    const made: string[] = [];
    for (const ip of ['10.1.0.1', '10.1.0.2', '10.1.0.3']) {
      outcomes[ip] = [];
      for (let i = 0; i < 6; i++) {
        const answer = await callOnNewConnection(perRequest.url, 'eth_newBlockFilter', [], { 'x-forwarded-for': ip });
        if (typeof answer.result === 'string') made.push(answer.result);
        outcomes[ip].push(typeof answer.result === 'string' ? 'ok' : (answer.error?.message ?? String(answer.dropped)));
        // Lets the place just taken reach the other replicas' view (pub/sub) before the next request.
        await sleep(50);
      }
    }
    // Uninstalled through the balancer, each mostly on a replica other than its maker (before the checks,
    // so that a failure here leaves the next tests room).
    const uninstalled: unknown[] = [];
    for (const id of made) uninstalled.push((await callOnNewConnection(perRequest.url, 'eth_uninstallFilter', [id])).result);
    // Both caps answer the node's own error: max_filters_per_ip stops the first two addresses at 4 while
    // filter-cap still has room, and filter-cap stops the third at 10 in all.
    const full = 'error creating block filter: max limit reached';
    expect(outcomes).toEqual({
      '10.1.0.1': ['ok', 'ok', 'ok', 'ok', full, full],
      '10.1.0.2': ['ok', 'ok', 'ok', 'ok', full, full],
      '10.1.0.3': ['ok', 'ok', full, full, full, full],
    });
    expect(uninstalled).toEqual(made.map(() => true));
    // The cap is free again.
    expect(typeof (await callOnNewConnection(perRequest.url, 'eth_newBlockFilter', [], { 'x-forwarded-for': '10.1.0.4' })).result).toBe('string');
  });

  it(`holds max_ws_connections_per_ip ${WS_PER_IP} across the replicas behind the TCP balancer`, async () => {
    const url = wsBalancer.url.replace(/^http/, 'ws');
    const refused: number[] = [];
    for (let i = 0; i < WS_PER_IP + 3; i++) {
      const opened = await PipelineSocket.open(url, { 'x-forwarded-for': '10.2.0.1' });
      if (opened.ok) sockets.push(opened.ws);
      else refused.push(opened.status);
      await sleep(50);
    }
    await sleep(500);
    expect(sockets.filter((s) => s.closeCode === undefined)).toHaveLength(WS_PER_IP);
    expect(refused).toEqual([429, 429, 429]);
  });

  it(`delivers ${EVENTS} events over 30+ blocks to ethers, viem and raw polls, once each and in time, while a replica is killed`, async () => {
    const address = await probe.getAddress();
    const { abi } = compileProbe();
    const rpc = (method: string, params: unknown[] = []) => callOnNewConnection(perConnection.url, method, params);
    // A filter made on C itself, polled only once C is gone.
    const onC = (await callOnNewConnection(set.replicas[2].evmHttpUrl, 'eth_newFilter', [{ address }])).result as string;
    const raw = (await rpc('eth_newFilter', [{ address }])).result as string;
    // A pending-transaction filter (of another client address: 127.0.0.1 holds its max_filters_per_ip).
    const pending = (await callOnNewConnection(perConnection.url, 'eth_newPendingTransactionFilter', [], { 'x-forwarded-for': '10.3.0.1' })).result as string;
    expect([typeof onC, typeof raw, typeof pending]).toEqual(['string', 'string', 'string']);
    const watchers: EventWatcher[] = [
      await watchWithEthers(perRequest.url, address, abi, 'Counted', POLL_MS),
      await watchWithViem(perRequest.url, address, abi, 'Counted', POLL_MS),
    ];
    // Both have made their filter and polled it.
    while (watchers.some((w) => w.polls() < 2)) await sleep(POLL_MS);

    const rawSeen: string[] = [];
    const rawAnswers: RawAnswer[] = [];
    let sending = true;
    const poller = (async () => {
      for (let last = false; !last; ) {
        last = !sending;
        const answer = await rpc('eth_getFilterChanges', [raw]);
        rawAnswers.push(answer);
        rawSeen.push(...((answer.result ?? []) as Array<{ transactionHash: string }>).map((l) => l.transactionHash));
        await sleep(POLL_MS);
      }
    })();

    const startHeight = await wallet.provider!.getBlockNumber();
    const sent: Array<{ tx: string; polls: number[] }> = [];
    for (let i = 0; i < EVENTS || (await wallet.provider!.getBlockNumber()) - startHeight < 30; i++) {
      if (i === 10) await set.killC();
      // A fixed gas limit: no eth_estimateGas, whose execution a loaded machine can push past evm-timeout.
      const tx = (await probe.bump(`event-${i}`, { gasLimit: 200_000 })) as { hash: string; wait(): Promise<unknown> };
      await tx.wait();
      sent.push({ tx: tx.hash, polls: watchers.map((w) => w.polls()) });
    }
    const blocks = (await wallet.provider!.getBlockNumber()) - startHeight;
    const hashes = sent.map((s) => s.tx);
    // Waits for the last polls (bounded by the test timeout, not asserted).
    while (watchers.some((w) => w.seen.length < hashes.length)) await sleep(POLL_MS);
    await sleep(4 * POLL_MS);
    sending = false;
    await poller;

    for (const [i, w] of watchers.entries()) {
      expect([w.name, w.seen.map((s) => s.tx)]).toEqual([w.name, hashes]);
      expect([w.name, notFound(w.errors)]).toEqual([w.name, 0]);
      // Seen by the second answered poll after the tx was mined, at the latest (the first may have been under way).
      const late = w.seen.filter((s, n) => s.poll - sent[n].polls[i] > 2);
      expect([w.name, late]).toEqual([w.name, []]);
    }
    expect(rawSeen).toEqual(hashes);
    expect(notFound(rawAnswers.flatMap((a) => (a.error ? [a.error.message] : [])))).toBe(0);
    expect(blocks).toBeGreaterThanOrEqual(30);

    // C's filter, never polled: A and B serve all of it.
    const fromC = await rpc('eth_getFilterChanges', [onC]);
    expect(((fromC.result ?? []) as Array<{ transactionHash: string }>).map((l) => l.transactionHash)).toEqual(hashes);
    // Found (its range is latest..latest, no fromBlock being given, as go-ethereum reads it).
    expect(Array.isArray((await rpc('eth_getFilterLogs', [onC])).result)).toBe(true);
    expect((await rpc('eth_getFilterChanges', [pending])).result).toEqual(hashes);
    // Uninstalled on one replica, gone for the others.
    expect((await callOnNewConnection(set.replicas[0].evmHttpUrl, 'eth_uninstallFilter', [onC])).result).toBe(true);
    expect((await callOnNewConnection(set.replicas[1].evmHttpUrl, 'eth_getFilterChanges', [onC])).error?.message).toBe(`filter ${onC} not found`);
    expect((await callOnNewConnection(set.replicas[1].evmHttpUrl, 'eth_uninstallFilter', [onC])).result).toBe(false);

    const dropped = rawAnswers.filter((a) => a.dropped !== undefined).length;
    process.stdout.write(
      `replicas-balancer (${perRequest.kind} + tcp): ${hashes.length} events over ${blocks} blocks; ` +
        watchers.map((w) => `${w.name}: seen ${w.seen.length}, ${w.polls()} polls, ${notFound(w.errors)} not found, ${w.errors.length} errors`).join('; ') +
        `; raw: seen ${rawSeen.length}, ${rawAnswers.length} polls on new connections, ${notFound(rawAnswers.flatMap((a) => (a.error ? [a.error.message] : [])))} not found, ${dropped} dropped by the kill\n`,
    );
    await Promise.all(watchers.map((w) => w.stop()));
    await rpc('eth_uninstallFilter', [raw]);
    await rpc('eth_uninstallFilter', [pending]);
  });
});
