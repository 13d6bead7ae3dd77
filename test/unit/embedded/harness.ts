import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { EventBus, parseQuery, type BusEvent } from '../../../src/events';
import { EmbeddedBackendConfig, DevnetNode } from '../../../src/backends/embedded/devnet-node';

export const CHAIN_ID = 'devnet-test';

export function config(overrides: Partial<EmbeddedBackendConfig> = {}): EmbeddedBackendConfig {
  return {
    home: '',
    chainId: CHAIN_ID,
    moniker: 'test-node',
    blockTimeMs: 60_000,
    ephemeral: true,
    mempoolSize: 5000,
    maxTxBytes: 1048576,
    rpcAddress: 'tcp://127.0.0.1:26657',
    ...overrides,
  };
}

export interface Harness {
  backend: DevnetNode;
  bus: EventBus;
  events: BusEvent[];
  /** Makes one block now (tests use a long block time and drive blocks themselves). */
  nextBlock(): Promise<void>;
  stop(): Promise<void>;
}

/** An ephemeral devnet, started (block 1 exists), recording every event. */
export async function startDevnet(overrides: Partial<EmbeddedBackendConfig> = {}): Promise<Harness> {
  const bus = new EventBus();
  const events: BusEvent[] = [];
  // Every published event has tm.event.
  bus.subscribe('recorder', parseQuery('tm.event EXISTS'), { bufferSize: 100_000, onEvent: (e) => void events.push(e), onCancel: () => undefined });
  const backend = await DevnetNode.open(config(overrides), bus);
  await backend.start();
  return {
    backend,
    bus,
    events,
    nextBlock: () => backend.devnet.producer!.produceBlock(),
    stop: () => backend.stop(),
  };
}

export function tempHome(): { home: string; remove(): void } {
  const home = mkdtempSync(join(tmpdir(), 'devnet-'));
  return { home, remove: () => rmSync(home, { recursive: true, force: true }) };
}

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The ApplicationError text a backend call fails with. */
export async function errorOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the call to fail');
}

/** Lets the bus deliver queued events. */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
