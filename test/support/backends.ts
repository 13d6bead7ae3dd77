/**
 * The backends the client suites (CosmJS, ethers) run their same test bodies against: the gateway over
 * its embedded devnet, and a gateway in upstream mode in front of an embedded-devnet gateway, which is
 * then a real node-RPC and EVM upstream (HTTP and WebSocket).
 */
import type { BackendKind } from '../../src/config/config.types';
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
