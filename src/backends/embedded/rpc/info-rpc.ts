/** The node's own information: health, status, net_info, genesis and the dial routes (rpc/core/status.go, net.go). */
import type { JsonObject } from '../../../rpc/json';
import { ApplicationError } from '../../../rpc/errors';
import { hexJson, pubKeyJson, timestampJson } from '../../../devnet/chain/wire';
import type { Devnet } from '../../../devnet/devnet';
import { genesisDocJson } from '../../../devnet/genesis/genesis-doc';
import { BLOCK_PROTOCOL } from '../../../devnet/producer/chain-transitions';
import { asJson } from '../../../devnet/json';
import { netAddressError, peerIdError } from './peer-address';

/** The CometBFT release whose RPC the devnet answers as. */
export const COMETBFT_VERSION = '0.38.25';
/** version.P2PProtocol. */
const P2P_PROTOCOL = '8';
/** blocksync, consensus (state, data, vote, vote-set-bits), mempool, evidence, state sync (2), pex. */
const CHANNELS = '40202122233038606100';
/** The default p2p laddr a node reports; the devnet has no p2p layer and no peers. */
const P2P_LISTEN_ADDRESS = 'tcp://0.0.0.0:26656';
/** genesisChunkSize: 16 MiB. */
const GENESIS_CHUNK_SIZE = 16 * 1024 * 1024;
const UNIX_EPOCH = '1970-01-01T00:00:00Z';

export interface NodeSettings {
  moniker: string;
  /** [rpc] laddr, reported as node_info.other.rpc_address. */
  rpcAddress: string;
}

export class InfoRpc {
  private readonly genesisChunks: string[];

  constructor(
    private readonly devnet: Devnet,
    private readonly settings: NodeSettings,
  ) {
    const text = Buffer.from(JSON.stringify(genesisDocJson(devnet.identity.genesis)));
    this.genesisChunks = [];
    for (let i = 0; i < text.length; i += GENESIS_CHUNK_SIZE) {
      this.genesisChunks.push(text.subarray(i, i + GENESIS_CHUNK_SIZE).toString('base64'));
    }
  }

  /** A follower that stopped following is not healthy. */
  async health(): Promise<JsonObject> {
    const halted = this.devnet.follower?.haltReason;
    if (halted !== undefined) throw new ApplicationError(`not following the leader any more: ${halted}`);
    return {};
  }

  async status(): Promise<JsonObject> {
    const { devnet } = this;
    const { validatorKey, nodeKey } = devnet.identity;
    const state = devnet.state;
    const [latest, earliest] = await Promise.all([devnet.store.loadMeta(devnet.latestHeight), devnet.store.loadMeta(devnet.baseHeight)]);
    const ours = state.validators.validators.find((v) => Buffer.from(v.address).equals(validatorKey.address));
    return {
      node_info: {
        protocol_version: { p2p: P2P_PROTOCOL, block: BLOCK_PROTOCOL.toString(), app: state.appVersion.toString() },
        id: nodeKey.id,
        listen_addr: P2P_LISTEN_ADDRESS,
        network: state.chainId,
        version: COMETBFT_VERSION,
        channels: CHANNELS,
        moniker: this.settings.moniker,
        other: { tx_index: 'on', rpc_address: this.settings.rpcAddress },
      },
      sync_info: {
        latest_block_hash: latest === undefined ? '' : hexJson(latest.blockId.hash),
        latest_app_hash: latest === undefined ? '' : hexJson(latest.header.appHash),
        latest_block_height: devnet.latestHeight.toString(),
        latest_block_time: latest === undefined ? UNIX_EPOCH : timestampJson(latest.header.time),
        earliest_block_hash: earliest === undefined ? '' : hexJson(earliest.blockId.hash),
        earliest_app_hash: earliest === undefined ? '' : hexJson(earliest.header.appHash),
        earliest_block_height: (earliest?.header.height ?? 0n).toString(),
        earliest_block_time: earliest === undefined ? UNIX_EPOCH : timestampJson(earliest.header.time),
        catching_up: devnet.catchingUp,
      },
      validator_info: {
        address: hexJson(validatorKey.address),
        pub_key: asJson(pubKeyJson(validatorKey.pubKey)),
        voting_power: (ours?.votingPower ?? 0n).toString(),
      },
    };
  }

  async netInfo(): Promise<JsonObject> {
    // Node.Listeners() formats the (empty by default) p2p external address.
    return { listening: true, listeners: ['Listener(@)'], n_peers: '0', peers: [] };
  }

  async genesis(): Promise<JsonObject> {
    if (this.genesisChunks.length > 1) {
      throw new ApplicationError('genesis response is large, please use the genesis_chunked API instead');
    }
    return { genesis: genesisDocJson(this.devnet.identity.genesis) };
  }

  async genesisChunked(chunk: number): Promise<JsonObject> {
    const last = this.genesisChunks.length - 1;
    if (chunk > last) throw new ApplicationError(`there are ${last} chunks, ${chunk} is invalid`);
    return { chunk: chunk.toString(), total: this.genesisChunks.length.toString(), data: this.genesisChunks[chunk] };
  }

  async dialSeeds(seeds: string[]): Promise<JsonObject> {
    if (seeds.length === 0) throw new ApplicationError('no seeds provided');
    checkAddresses(seeds);
    return { log: 'Dialing seeds in progress. See /net_info for details' };
  }

  async dialPeers(peers: string[]): Promise<JsonObject> {
    if (peers.length === 0) throw new ApplicationError('no peers provided');
    const noId = peers.map(peerIdError).find((e) => e !== undefined);
    if (noId !== undefined) throw new ApplicationError(noId);
    checkAddresses(peers);
    return { log: 'Dialing peers in progress. See /net_info for details' };
  }
}

/** DialPeersAsync answers the first malformed address; the dialing itself runs in the background. */
function checkAddresses(addresses: string[]): void {
  const error = addresses.map(netAddressError).find((e) => e !== undefined);
  if (error !== undefined) throw new ApplicationError(error);
}
