/**
 * Gateways in upstream mode around a FaultyUpstream, for the fault suites of both interfaces: `pair`
 * serves from the faulty proxy (weight 10: asked first while it is well) and a clean upstream of the
 * same chain, `solo` from the faulty proxy alone. Both have Prometheus on and short health intervals and
 * timeouts, so that a fault is noticed, and its end seen, within a second or two.
 *
 * `expectRoutedAround` is what every HTTP fault (HTTP_FAULTS) goes through on either interface,
 * `expectSlowServed` what a slow upstream does.
 */
import { evmRpcFlags } from './backends';
import { FaultyUpstream, type Fault } from './faulty-upstream';
import { get } from './gateway';
import { startUpstreamGateway, type EvmEntry, type UpstreamGateway } from './upstream';
import { Exposition } from '../unit/metrics/exposition';

export type Surface = 'node' | 'evm';

/**
 * `[upstream]` for the fault suites: a health round every 100 ms (a probe waits at most 1 s), a request
 * 1 s at most, one retry, a hedge after 200 ms at most, an open breaker half-open after 500 ms.
 */
const FAULT_SETTINGS = {
  health_check_interval: '100ms',
  request_timeout: '1s',
  unhealthy_threshold: 2,
  retries: 1,
  retry_backoff: '10ms',
  hedge_max_delay: '200ms',
  breaker_open_time: '500ms',
};

/** The upstream names in both gateways. */
export const FAULTY = 'faulty';
export const CLEAN = 'clean';

const METRICS = { 'instrumentation.prometheus': 'true', 'instrumentation.prometheus_listen_addr': '127.0.0.1:0' };

export interface FaultBench {
  readonly surface: Surface;
  readonly proxy: FaultyUpstream;
  /** The faulty proxy and the clean upstream. */
  readonly pair: UpstreamGateway;
  /** The faulty proxy alone. */
  readonly solo: UpstreamGateway;
  close(): Promise<void>;
}

/** A proxy in front of `target` (http:// URL) and the two gateways; `clean` is the clean upstream's URL. */
export async function startFaultBench(surface: Surface, target: string, clean: string): Promise<FaultBench> {
  const proxy = await FaultyUpstream.start(target);
  const faulty: EvmEntry = { name: FAULTY, url: proxy.url, weight: 10, ws: proxy.wsUrl };
  const good: EvmEntry = { name: CLEAN, url: clean, ws: clean.replace(/^http/, 'ws') };
  const start = (entries: EvmEntry[]) =>
    surface === 'evm'
      ? startUpstreamGateway([], { evm: entries, settings: FAULT_SETTINGS, flags: { ...evmRpcFlags('eth,net,web3'), ...METRICS } })
      : startUpstreamGateway(entries.map(({ name, url, weight }) => ({ name, url, weight })), { settings: FAULT_SETTINGS, flags: METRICS });
  const [pair, solo] = await Promise.all([start([faulty, good]), start([faulty])]);
  return {
    surface,
    proxy,
    pair,
    solo,
    async close() {
      await Promise.all([pair.close(), solo.close()]);
      await proxy.close();
    },
  };
}

/** The URL of the interface under test on `gw`. */
function rpcUrl(bench: FaultBench, gw: UpstreamGateway): string {
  return bench.surface === 'evm' ? gw.evmHttpUrl! : gw.url;
}

/** A JSON-RPC call over HTTP: the whole answer object. */
export async function rpcCall(url: string, method: string, params: unknown): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    // A limit, not a measurement: no fault may hold a client longer than this.
    signal: AbortSignal.timeout(10_000),
  });
  return res.json();
}

/** A JSON-RPC call over HTTP that expects success: its result. */
export async function rpcResult(url: string, method: string, params: unknown): Promise<any> {
  const answer = await rpcCall(url, method, params);
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** One sample of `gw`'s metrics: `rpcgw_<name>` for upstream `upstream` of the bench's interface. */
export async function upstreamMetric(bench: FaultBench, gw: UpstreamGateway, name: string, upstream: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const exposition = new Exposition((await get(gw.metricsUrl!, '/metrics')).text);
  return exposition.value(`rpcgw_${name}`, { interface: bench.surface, upstream, ...labels });
}

/** Polls `done` every 20 ms until it holds; fails with `what` after `timeoutMs`. */
export async function until(done: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until `gw` reports the faulty upstream up (1) or down (0). */
export function untilFaultyUp(bench: FaultBench, gw: UpstreamGateway, up: 0 | 1): Promise<void> {
  return until(async () => (await upstreamMetric(bench, gw, 'upstream_up', FAULTY)) === up, `rpcgw_upstream_up{upstream="${FAULTY}"} ${up}`);
}

/** The JSON-RPC error a client of the interface gets for a failure described by `text`. */
export function clientError(surface: Surface, text: string | RegExp): unknown {
  const words = typeof text === 'string' ? text : expect.stringMatching(text);
  return surface === 'evm' ? { code: -32000, message: words } : { code: -32603, message: 'Internal error', data: words };
}

/** The text of the error every request gets while no upstream of the bench's interface is healthy. */
export function noneHealthy(surface: Surface): string {
  return surface === 'evm' ? 'no healthy EVM upstream available' : 'no healthy upstream node available';
}

export interface HttpFaultCase {
  readonly name: string;
  readonly fault: Fault;
  /** `kind` of rpcgw_upstream_errors_total a request that meets it counts. */
  readonly kind: 'timeout' | 'connection' | 'http';
  /** The health check's error for it, as the gateway tells it. */
  readonly reason: RegExp;
}

/** Faults of the HTTP exchange itself, which every request and health check meets. */
const HTTP_FAULTS: readonly HttpFaultCase[] = [
  { name: 'hang', fault: { kind: 'hang' }, kind: 'timeout', reason: /^no answer within 1000ms$/ },
  { name: 'garbage', fault: { kind: 'garbage' }, kind: 'http', reason: /^HTTP 200: not JSON$/ },
  { name: 'partial JSON, then close', fault: { kind: 'partial' }, kind: 'http', reason: /^other side closed$/ },
  { name: 'HTTP 502, text', fault: { kind: 'http5xx', status: 502, body: 'text' }, kind: 'http', reason: /^HTTP 502: not JSON$/ },
  { name: 'HTTP 503, JSON-RPC error', fault: { kind: 'http5xx', status: 503, body: 'json' }, kind: 'http', reason: /^HTTP 503: \{"code":-32603,"message":"upstream unavailable"\}$/ },
  { name: 'HTML page, 200', fault: { kind: 'html', status: 200 }, kind: 'http', reason: /^HTTP 200: not JSON$/ },
  { name: 'HTML page, 502', fault: { kind: 'html', status: 502 }, kind: 'http', reason: /^HTTP 502: not JSON$/ },
  { name: 'connection reset', fault: { kind: 'reset' }, kind: 'connection', reason: /^UND_ERR_SOCKET: other side closed$/ },
];

/** Reads of one interface for the scenarios: each with params never used before, so no cache answers it. */
export interface FreshReads {
  /** Their JSON-RPC method (the proxy counts it). */
  readonly method: string;
  /** The next read's params, and the clean upstream's own answer to them (the `result`). */
  next(): Promise<{ readonly params: unknown; readonly want: unknown }>;
}

/** `count` fresh reads through `gw`, each answered as the clean upstream answers it. */
export async function expectCorrectReads(bench: FaultBench, gw: UpstreamGateway, reads: FreshReads, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const { params, want } = await reads.next();
    const answer = await rpcCall(rpcUrl(bench, gw), reads.method, params);
    expect(answer).toEqual({ jsonrpc: '2.0', id: 1, result: want });
  }
}

/**
 * One HTTP fault, start to end. While it lasts: the first request of `solo` (which meets it) gets a
 * clear error, never the fault's bytes, and it counts in rpcgw_upstream_errors_total{kind}; every read
 * through `pair` is answered as the clean upstream answers it; both gateways mark the faulty upstream
 * down (rpcgw_upstream_up 0), and `solo` then answers why. Once it is cleared, both see it up again and
 * `pair` sends it reads again.
 */
async function expectRoutedAround(bench: FaultBench, reads: FreshReads, c: HttpFaultCase): Promise<void> {
  const { proxy, pair, solo, surface } = bench;
  const errors = () => upstreamMetric(bench, solo, 'upstream_errors_total', FAULTY, { kind: c.kind });
  const errorsBefore = (await errors()) ?? 0;
  proxy.set(c.fault);
  try {
    const first = await rpcCall(rpcUrl(bench, solo), reads.method, (await reads.next()).params);
    expect(first.error).toEqual(clientError(surface, /^(upstream request failed: |no healthy)/));
    expect(await errors()).toBeGreaterThan(errorsBefore);

    await expectCorrectReads(bench, pair, reads, 20);
    await Promise.all([untilFaultyUp(bench, pair, 0), untilFaultyUp(bench, solo, 0)]);
    await expectCorrectReads(bench, pair, reads, 5);
    const down = await rpcCall(rpcUrl(bench, solo), reads.method, (await reads.next()).params);
    expect(down.error).toEqual(clientError(surface, new RegExp(`^${noneHealthy(surface)} \\(${FAULTY}: unreachable \\(.+\\)\\)$`)));
    const reason = /\(faulty: unreachable \((.+)\)\)$/.exec(down.error.data ?? down.error.message)![1];
    expect(reason).toMatch(c.reason);
  } finally {
    proxy.set({ kind: 'none' });
  }
  await Promise.all([untilFaultyUp(bench, pair, 1), untilFaultyUp(bench, solo, 1)]);
  await expectCorrectReads(bench, solo, reads, 1);
  const seen = proxy.requests(reads.method);
  await until(async () => {
    await expectCorrectReads(bench, pair, reads, 1);
    return proxy.requests(reads.method) > seen;
  }, 'a read through the recovered upstream');
}

/**
 * A slow upstream (each answer 300 ms late, within every timeout): every read through `pair` is answered
 * as the clean upstream answers it (hedged to it, or routed to it first once the slow one is measured:
 * which of the two depends on the machine's pace; test/e2e/upstream-hedging.test.ts counts hedges);
 * slow is not down, and alone it still answers, late.
 */
async function expectSlowServed(bench: FaultBench, reads: FreshReads): Promise<void> {
  bench.proxy.set({ kind: 'slow', delayMs: 300 });
  try {
    await expectCorrectReads(bench, bench.pair, reads, 10);
    await expectCorrectReads(bench, bench.solo, reads, 1);
    expect(await upstreamMetric(bench, bench.pair, 'upstream_up', FAULTY)).toBe(1);
  } finally {
    bench.proxy.set({ kind: 'none' });
  }
}

/**
 * Every HTTP fault of HTTP_FAULTS and a slow upstream, as a describe block of a surface's suite; `bench`
 * is called once the suite has started it.
 */
export function describeHttpFaults(title: string, bench: () => FaultBench, reads: FreshReads): void {
  describe(title, () => {
    it.each(HTTP_FAULTS.map((c) => [c.name, c] as const))('%s: routed around, a clear error alone, back once it ends', async (_name, c) => {
      await expectRoutedAround(bench(), reads, c);
    });

    it('slow (300 ms): answers stay right, the clean upstream takes the reads meanwhile', async () => {
      await expectSlowServed(bench(), reads);
    });
  });
}
