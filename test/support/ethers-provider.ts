import { JsonRpcProvider, type FetchRequest, type JsonRpcApiProviderOptions, type Networkish } from 'ethers';

/**
 * An ethers v6 provider as the tests use it: a static network, polling every 100 ms, and no answer
 * cache. ethers answers an identical request from its own cache for 250 ms (`cacheTimeout`); against
 * a devnet that mines every 200 ms, a send right after a mined one would get the old pending nonce.
 */
export function testProvider(url: string | FetchRequest, options: JsonRpcApiProviderOptions = {}, network?: Networkish): JsonRpcProvider {
  return new JsonRpcProvider(url, network, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1, ...options });
}
