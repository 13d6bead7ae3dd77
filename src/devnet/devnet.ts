/**
 * The embedded devnet: one node in-process. Opens (or creates) the node's home and database, runs
 * InitChain on a fresh chain, and wires the application, mempool, indexers and the node's role
 * together: the validator's block producer, or, with `follow`, a follower that replays the blocks of
 * a validator elsewhere (sharing its genesis) and forwards the txs it receives to it. With `evm`
 * configured, the application is the kvstore and the EVM application side by side (a new genesis then
 * limits block.max_gas to the EVM block gas limit); without it, the kvstore alone.
 */
import { Logger } from '@nestjs/common';
import type { Application } from './app/application';
import { EvmApplication } from './app/evm/evm-application';
import { DEFAULT_BLOCK_GAS_LIMIT, resolveEvmParams, type EvmConfig } from './app/evm/evm-params';
import { KvStoreApplication } from './app/kvstore/kvstore-app';
import { RouterApplication } from './app/router-application';
import { EvmChainStore } from './evm-state/evm-chain-store';
import { BlockApplier } from './follower/block-applier';
import { BlockFetcher } from './follower/block-fetcher';
import { Follower } from './follower/follower';
import type { LeaderConnection } from './follower/leader-connection';
import { checkSameGenesis, readLeader, type LeaderInfo } from './follower/leader-genesis';
import { LeaderIntake } from './follower/leader-intake';
import { newGenesisDoc, type GenesisDoc } from './genesis/genesis-doc';
import { databasePath, ephemeralIdentity, initNodeHome, NodeIdentity } from './genesis/node-home';
import type { ValidatorKey } from './chain/keys';
import { catchUpAddressIndex } from './indexer/address-backfill';
import { BlockIndexer } from './indexer/block-indexer';
import { TxIndexer } from './indexer/tx-indexer';
import { Mempool } from './mempool/mempool';
import type { TxIntake } from './mempool/tx-intake';
import { BlockCommitter, type CommitListener } from './producer/block-committer';
import { BlockProducer } from './producer/block-producer';
import type { ChainState } from './producer/chain-state';
import { genesisState, maxDataBytes } from './producer/chain-transitions';
import { ChainStore } from './store/chain-store';
import { Database } from './store/database';
import { now } from './time';

export interface DevnetConfig {
  /** Home directory; unused when ephemeral. */
  home: string;
  /** Chain id of a new genesis; an existing genesis.json keeps its own. */
  chainId: string;
  blockTimeMs: number;
  /** Keys, genesis and data in memory only. */
  ephemeral: boolean;
  mempoolSize: number;
  maxTxBytes: number;
  /** Run Ethereum transactions beside the kvstore; absent = the kvstore alone. */
  evm?: EvmConfig;
  /** Node RPC URL of the validator to follow as a full node; absent = be the validator. */
  follow?: string;
}

/** What the devnet needs from the program it runs in. */
export interface DevnetHost {
  /** Hears each committed block, once it can be read back. */
  onCommit: CommitListener;
  /** Opens the line to the validator that `follow` names. */
  connectLeader(url: string): LeaderConnection;
}

/** mempool.max_txs_bytes and mempool.cache_size defaults of CometBFT. */
const MAX_TXS_BYTES = 1073741824;
const CACHE_SIZE = 10000;

/** The validator a follower follows. */
interface Leader {
  client: LeaderConnection;
  info: LeaderInfo;
}

/** What a devnet is made of; exactly one of `producer` and `follower` is set. */
interface DevnetParts {
  identity: NodeIdentity;
  db: Database;
  store: ChainStore;
  app: Application;
  mempool: Mempool;
  intake: TxIntake;
  txIndexer: TxIndexer;
  blockIndexer: BlockIndexer;
  committer: BlockCommitter;
  producer?: BlockProducer;
  follower?: Follower;
  evm: EvmApplication | undefined;
}

export class Devnet {
  readonly identity: NodeIdentity;
  readonly store: ChainStore;
  readonly app: Application;
  /** This node's mempool; a follower's stays empty. */
  readonly mempool: Mempool;
  /** Where txs sent to this node are admitted: the mempool, or a follower's leader. */
  readonly intake: TxIntake;
  readonly txIndexer: TxIndexer;
  readonly blockIndexer: BlockIndexer;
  /** The validator's block producer; undefined on a follower. */
  readonly producer: BlockProducer | undefined;
  /** The follower's sync; undefined on the validator. */
  readonly follower: Follower | undefined;
  /** The EVM application, when the devnet runs one. */
  readonly evm: EvmApplication | undefined;
  private readonly db: Database;
  private readonly committer: BlockCommitter;

  private constructor(parts: DevnetParts) {
    this.identity = parts.identity;
    this.db = parts.db;
    this.store = parts.store;
    this.app = parts.app;
    this.mempool = parts.mempool;
    this.intake = parts.intake;
    this.txIndexer = parts.txIndexer;
    this.blockIndexer = parts.blockIndexer;
    this.committer = parts.committer;
    this.producer = parts.producer;
    this.follower = parts.follower;
    this.evm = parts.evm;
  }

  static async open(config: DevnetConfig, host: DevnetHost): Promise<Devnet> {
    if (config.follow === undefined) return Devnet.openChain(config, host.onCommit, undefined);
    const client = host.connectLeader(config.follow);
    try {
      const info = await readLeader(client, config.evm !== undefined);
      return await Devnet.openChain(config, host.onCommit, { client, info });
    } catch (err) {
      client.close();
      throw err;
    }
  }

  private static async openChain(config: DevnetConfig, onCommit: CommitListener, leader: Leader | undefined): Promise<Devnet> {
    const maxGas = config.evm === undefined ? -1n : (config.evm.blockGasLimit ?? DEFAULT_BLOCK_GAS_LIMIT);
    const newGenesis = (key: ValidatorKey): GenesisDoc => leader?.info.genesis ?? newGenesisDoc(config.chainId, key, now(), maxGas);
    const identity = config.ephemeral ? ephemeralIdentity(newGenesis) : initNodeHome(config.home, newGenesis);
    if (leader !== undefined) checkSameGenesis(leader.client, identity.genesis, leader.info.genesis);
    const db = await Database.open(config.ephemeral ? undefined : databasePath(config.home));
    try {
      const store = new ChainStore(db);
      const stored = await store.loadState();
      await checkEvmPresence(db, stored !== undefined, config.evm !== undefined);
      // The kvstore keeps the signing validator in the set: this node's, or the leader's.
      const kvstore = await KvStoreApplication.load(db, leader?.info.signerPubKey ?? identity.validatorKey.pubKey);
      const evm = config.evm === undefined ? undefined : await loadEvm(db, store, identity, config.evm);
      const app = evm === undefined ? kvstore : new RouterApplication(kvstore, evm);
      const state = stored ?? (await initChain(identity, db, store, app));
      if (leader === undefined) checkIdentity(state, identity);
      else checkChain(state, identity);
      if (evm !== undefined) await catchUpEvmIndex(db, store, evm, state.initialHeight);
      const mempool = new Mempool(
        app,
        { size: config.mempoolSize, maxTxBytes: config.maxTxBytes, maxTxsBytes: MAX_TXS_BYTES, cacheSize: CACHE_SIZE },
        maxDataBytes(state),
      );
      const txIndexer = new TxIndexer(db);
      const blockIndexer = new BlockIndexer(db);
      const committer = new BlockCommitter({ db, store, app, mempool, txIndexer, blockIndexer, onCommit }, state);
      const common = { identity, db, store, app, mempool, txIndexer, blockIndexer, committer, evm };
      if (leader === undefined) {
        const producer = new BlockProducer({ store, app, mempool, committer, key: identity.validatorKey }, config.blockTimeMs);
        return new Devnet({ ...common, intake: mempool, producer });
      }
      const follower = new Follower(
        {
          leader: leader.client,
          fetcher: new BlockFetcher(leader.client),
          applier: new BlockApplier(committer),
          state: () => committer.state,
        },
        leader.info.height,
        config.blockTimeMs,
      );
      return new Devnet({ ...common, intake: new LeaderIntake(leader.client), follower });
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  /** The state after the last committed block. */
  get state(): ChainState {
    return this.committer.state;
  }

  get latestHeight(): bigint {
    return this.state.lastBlockHeight;
  }

  /** The lowest stored height (nothing is pruned); 0 before the first block. */
  get baseHeight(): bigint {
    return this.latestHeight === 0n ? 0n : this.state.initialHeight;
  }

  /** A follower more than a block behind its leader, or one that stopped following. */
  get catchingUp(): boolean {
    return this.follower?.catchingUp ?? false;
  }

  /** The validator produces a block at once, then one every block time; a follower starts syncing. */
  async start(): Promise<void> {
    if (this.producer !== undefined) await this.producer.start();
    this.follower?.start();
  }

  /** Stops block production or following, and closes the database. */
  async close(): Promise<void> {
    await this.producer?.stop();
    await this.follower?.stop();
    await this.db.close();
  }
}

/** The handshake on a fresh chain: InitChain with the genesis validators, Info for the app version. */
async function initChain(identity: NodeIdentity, db: Database, store: ChainStore, app: Application): Promise<ChainState> {
  const { genesis } = identity;
  const batch = db.batch();
  const appHash = await app.initChain(
    genesis.validators.map((v) => ({ keyType: 'ed25519', pubKey: v.pubKey, power: v.power })),
    batch,
  );
  const state = genesisState(genesis, appHash, (await app.info()).appVersion);
  store.saveGenesisState(batch, state);
  await batch.write();
  return state;
}

/** A database written before the address index existed gets it before the chain moves on. */
async function catchUpEvmIndex(db: Database, store: ChainStore, evm: EvmApplication, firstHeight: bigint): Promise<void> {
  const replayed = await catchUpAddressIndex(db, store, evm, firstHeight);
  if (replayed > 0) new Logger('EmbeddedDevnet').log(`indexed the addresses of ${replayed} earlier EVM blocks`);
}

function loadEvm(db: Database, store: ChainStore, identity: NodeIdentity, config: EvmConfig): Promise<EvmApplication> {
  const params = resolveEvmParams(config, identity.genesis.chainId);
  const maxGas = identity.genesis.consensusParams.block.maxGas;
  return EvmApplication.load(db, {
    params,
    blockGasLimit: maxGas > 0n ? maxGas : params.blockGasLimit,
    blockHashes: async (height) => (await store.loadMeta(height))?.blockId.hash,
  });
}

/** A chain keeps the applications it started with: its app hashes commit to their states. */
async function checkEvmPresence(db: Database, existingChain: boolean, evmWanted: boolean): Promise<void> {
  if (!existingChain) return;
  const hasEvm = (await new EvmChainStore(db).loadHead()) !== undefined;
  if (hasEvm && !evmWanted) throw new Error('the database holds a chain that runs the EVM, but the devnet is configured without it');
  if (!hasEvm && evmWanted) throw new Error('the database holds a chain started without the EVM; start the EVM devnet in a new home');
}

function checkChain(state: ChainState, identity: NodeIdentity): void {
  if (state.chainId !== identity.genesis.chainId) {
    throw new Error(`the database holds chain ${state.chainId}, but genesis.json is for ${identity.genesis.chainId}`);
  }
}

function checkIdentity(state: ChainState, identity: NodeIdentity): void {
  checkChain(state, identity);
  const address = Buffer.from(identity.validatorKey.address);
  const signs = (set: ChainState['validators']): boolean => set.validators.some((v) => address.equals(v.address));
  if (!signs(state.validators) || !signs(state.nextValidators)) {
    throw new Error(`the devnet's validator ${address.toString('hex').toUpperCase()} is not in the validator set, so it cannot sign blocks`);
  }
}
