/**
 * The backends the client suites (CosmJS, ethers) run their same test bodies against: the gateway over
 * its embedded devnet, and a gateway in upstream mode in front of an embedded-devnet gateway, which is
 * then a real node-RPC and EVM upstream (HTTP and WebSocket).
 */
import type { BackendKind } from '../../src/config/config.types';
import { Anvil } from './anvil';
import { startTestGateway, waitForHeight, type TestGateway } from './gateway';
import { startUpstreamGateway } from './upstream';

export const BACKENDS: readonly BackendKind[] = ['embedded', 'upstream'];

/** The EVM RPC on ephemeral ports with namespaces `api`, as CLI flags. */
export function evmRpcFlags(api: string): Record<string, string> {
  return { 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0', 'json-rpc.api': api };
}

/** A gateway started with `flags` over `kind`; its close() stops everything started for it. */
export async function startGatewayOver(kind: BackendKind, flags: Record<string, string> = {}): Promise<TestGateway> {
  if (kind === 'embedded') return startTestGateway(flags);
  const devnet = await startTestGateway(evmRpcFlags('eth,net,web3,debug,txpool'));
  try {
    await waitForHeight(devnet.url, 1);
    const gw = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], {
      evm: [{ name: 'devnet', url: devnet.evmHttpUrl!, ws: devnet.evmWsUrl! }],
      // The default interval: a health probe gets 2 s, so a devnet slowed by a busy machine is not taken for down.
      settings: { health_check_interval: '1s' },
      flags,
    });
    return {
      ...gw,
      async close() {
        await gw.close();
        await devnet.close();
      },
    };
  } catch (err) {
    await devnet.close();
    throw err;
  }
}

/** An EVM RPC to test clients against: its HTTP URL, and what stops everything started for it. */
export interface EvmTarget {
  readonly url: string;
  close(): Promise<void>;
}

/** The gateway over its embedded devnet, serving `eth,net,web3`, once block 1 exists. */
export async function devnetEvmTarget(): Promise<EvmTarget> {
  const gw = await startTestGateway(evmRpcFlags('eth,net,web3'));
  await waitForHeight(gw.url, 1);
  return { url: gw.evmHttpUrl!, close: () => gw.close() };
}

/** A gateway in upstream mode in front of one anvil (chain id 9000, as the devnet's), serving `eth,net,web3`. */
export async function anvilEvmTarget(): Promise<EvmTarget> {
  const anvil = await Anvil.start({ chainId: 9000 });
  const gw = await startUpstreamGateway([], { evm: [{ name: 'anvil', url: anvil.url, ws: anvil.wsUrl }], flags: evmRpcFlags('eth,net,web3') });
  return {
    url: gw.evmHttpUrl!,
    async close() {
      await gw.close();
      anvil.kill();
    },
  };
}
