import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/load-config';
import { pluginNamespaces } from '../../src/plugins/loader';

export interface TestGateway extends RunningGateway {
  readonly url: string;
  readonly wsUrl: string;
  readonly home: string;
}

/**
 * Starts a real gateway on an ephemeral port over a fresh home directory. `flags` use the CLI's
 * dotted names (`rpc.unsafe`, `devnet.block_time`, …).
 */
export async function startTestGateway(flags: Record<string, string> = {}, home?: string): Promise<TestGateway> {
  const dir = home ?? mkdtempSync(join(tmpdir(), 'rpcgw-'));
  const config = loadConfig({
    home: dir,
    env: {},
    flags: { 'rpc.laddr': 'tcp://127.0.0.1:0', 'devnet.block_time': '200ms', 'json-rpc.enable': 'false', ...flags },
    pluginNamespaces,
  });
  const gw = await startGateway(config, { logger: false });
  const url = gw.nodeRpcUrls[0];
  return {
    ...gw,
    url,
    wsUrl: url.replace(/^http/, 'ws') + '/websocket',
    home: dir,
    async close() {
      await gw.close();
      if (!home) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function answer(res: Response): Promise<HttpAnswer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export async function post(url: string, body: unknown): Promise<HttpAnswer> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return answer(await fetch(url + '/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: raw }));
}

export async function get(url: string, path: string, init?: RequestInit): Promise<HttpAnswer> {
  return answer(await fetch(url + path, init));
}

/** A JSON-RPC call over HTTP POST that expects success and returns the result. */
export async function call(url: string, method: string, params: unknown = {}): Promise<any> {
  const res = await post(url, { jsonrpc: '2.0', id: 1, method, params });
  if (res.json?.error) throw new Error(`${method}: ${JSON.stringify(res.json.error)}`);
  return res.json.result;
}

/** Resolves once the chain has reached `height`. */
export function waitForHeight(url: string, height: number, timeoutMs = 15000): Promise<void> {
  return waitForStatus(url, (s) => Number(s.sync_info.latest_block_height) >= height, `height ${height} not reached`, timeoutMs);
}

/** Polls `status` until `ready` holds for it; fails with `failure` after `timeoutMs`. */
export async function waitForStatus(url: string, ready: (status: any) => boolean, failure: string, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (ready(await call(url, 'status'))) return;
    if (Date.now() > deadline) throw new Error(failure);
    await new Promise((r) => setTimeout(r, 50));
  }
}
