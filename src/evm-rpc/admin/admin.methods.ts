import { Inject, Injectable } from '@nestjs/common';
import { Wallet, keccak256 } from 'ethers';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import type { Invoker } from '../../rpc/invoker';
import { INVOKER, type MethodSource } from '../../rpc/registration';
import { eth_getBlockByNumber } from '../eth/blocks.methods';
import { eth_chainId } from '../eth/chain.methods';
import { net_version } from '../net/net.methods';
import { web3_clientVersion } from '../web3/web3.methods';
import * as c from '../codec/codecs';
import { checkEnode } from './enode';

/**
 * admin, as a running node without peers answers: the gateway has a p2p identity of its own (made
 * at start, never dialled), its data directory is the gateway's home, and peer requests are checked
 * and accepted the way go-ethereum accepts them before any connection exists.
 */
@Injectable()
export class AdminMethods implements MethodSource {
  /** The uncompressed secp256k1 public key without its 0x04 prefix. */
  private readonly publicKey = new Wallet(Wallet.createRandom().privateKey).signingKey.publicKey.slice(4);

  constructor(
    @Inject(INVOKER.evm) private readonly evm: Invoker,
    private readonly config: GatewayConfigService,
  ) {}

  methods(): AnyMethod[] {
    const group = 'admin';
    const peerRequest = (name: string): AnyMethod =>
      defineMethod({
        group,
        name,
        params: [param('url', c.string)],
        handler: (a) => {
          checkEnode(a.url);
          return true;
        },
      });
    return [
      defineMethod({ group, name: 'admin_nodeInfo', params: [], handler: () => this.nodeInfo() }),
      defineMethod({ group, name: 'admin_peers', params: [], handler: () => [] }),
      defineMethod({ group, name: 'admin_datadir', params: [], handler: () => this.config.home }),
      ...['admin_addPeer', 'admin_removePeer', 'admin_addTrustedPeer', 'admin_removeTrustedPeer'].map(peerRequest),
    ];
  }

  private async nodeInfo(): Promise<Record<string, unknown>> {
    const [name, network, chainId, genesis, head] = await Promise.all([
      this.evm.invoke(web3_clientVersion, {}),
      this.evm.invoke(net_version, {}),
      this.evm.invoke(eth_chainId, {}),
      this.evm.invoke(eth_getBlockByNumber, { block: { kind: 'tag', tag: 'earliest' }, fullTransactions: false }),
      this.evm.invoke(eth_getBlockByNumber, { block: { kind: 'tag', tag: 'latest' }, fullTransactions: false }),
    ]);
    return {
      id: keccak256('0x' + this.publicKey).slice(2),
      name,
      enode: `enode://${this.publicKey}@127.0.0.1:0?discport=0`,
      ip: '127.0.0.1',
      ports: { discovery: 0, listener: 0 },
      listenAddr: '[::]:0',
      protocols: {
        eth: { network: Number(network), difficulty: 0, genesis: genesis?.hash ?? null, config: { chainId: Number(chainId) }, head: head?.hash ?? null },
      },
    };
  }
}
