/**
 * The embedded devnet: one validator node in-process. Opens (or creates) the node's home and
 * database, runs InitChain on a fresh chain, and wires the application, mempool, indexers and block
 * producer together. With `evm` configured, the application is the kvstore and the EVM application
 * side by side (a new genesis then limits block.max_gas to the EVM block gas limit); without it, the
 * kvstore alone.
 */
import type { EventBus } from '../../events';
import type { Application } from './app/application';
import { EvmApplication } from './app/evm/evm-application';
import { DEFAULT_BLOCK_GAS_LIMIT, resolveEvmParams, type EvmConfig } from './app/evm/evm-params';
import { KvStoreApplication } from './app/kvstore/kvstore-app';
import { RouterApplication } from './app/router-application';
import { EvmChainStore } from './evm-state/evm-chain-store';
import { databasePath, ephemeralIdentity, initNodeHome, NodeIdentity } from './genesis/node-home';
import { BlockIndexer } from './indexer/block-indexer';
import { TxIndexer } from './indexer/tx-indexer';
import { Mempool } from './mempool/mempool';
import { BlockProducer } from './producer/block-producer';
import type { ChainState } from './producer/chain-state';
import { genesisState, maxDataBytes } from './producer/chain-transitions';
import { ChainStore } from './store/chain-store';
import { Database } from './store/database';

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
}

/** mempool.max_txs_bytes and mempool.cache_size defaults of CometBFT. */
const MAX_TXS_BYTES = 1073741824;
const CACHE_SIZE = 10000;

export class Devnet {
  private constructor(
    readonly identity: NodeIdentity,
    private readonly db: Database,
    readonly store: ChainStore,
    readonly app: Application,
    readonly mempool: Mempool,
    readonly txIndexer: TxIndexer,
    readonly blockIndexer: BlockIndexer,
    readonly producer: BlockProducer,
    /** The EVM application, when the devnet runs one. */
    readonly evm: EvmApplication | undefined,
  ) {}

  static async open(config: DevnetConfig, bus: EventBus): Promise<Devnet> {
    const maxGas = config.evm === undefined ? -1n : (config.evm.blockGasLimit ?? DEFAULT_BLOCK_GAS_LIMIT);
    const identity = config.ephemeral ? ephemeralIdentity(config.chainId, maxGas) : initNodeHome(config.home, config.chainId, maxGas);
    const db = await Database.open(config.ephemeral ? undefined : databasePath(config.home));
    try {
      const store = new ChainStore(db);
      const stored = await store.loadState();
      await checkEvmPresence(db, stored !== undefined, config.evm !== undefined);
      const kvstore = await KvStoreApplication.load(db, identity.validatorKey.pubKey);
      const evm = config.evm === undefined ? undefined : await loadEvm(db, store, identity, config.evm);
      const app = evm === undefined ? kvstore : new RouterApplication(kvstore, evm);
      const state = stored ?? (await initChain(identity, db, store, app));
      checkIdentity(state, identity);
      const mempool = new Mempool(
        app,
        { size: config.mempoolSize, maxTxBytes: config.maxTxBytes, maxTxsBytes: MAX_TXS_BYTES, cacheSize: CACHE_SIZE },
        maxDataBytes(state),
      );
      const txIndexer = new TxIndexer(db);
      const blockIndexer = new BlockIndexer(db);
      const producer = new BlockProducer(
        { db, store, app, mempool, txIndexer, blockIndexer, bus, key: identity.validatorKey },
        state,
        config.blockTimeMs,
      );
      return new Devnet(identity, db, store, app, mempool, txIndexer, blockIndexer, producer, evm);
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  /** The state after the last committed block. */
  get state(): ChainState {
    return this.producer.chainState;
  }

  get latestHeight(): bigint {
    return this.state.lastBlockHeight;
  }

  /** The lowest stored height (nothing is pruned); 0 before the first block. */
  get baseHeight(): bigint {
    return this.latestHeight === 0n ? 0n : this.state.initialHeight;
  }

  /** Produces a block at once, then one every block time. */
  start(): Promise<void> {
    return this.producer.start();
  }

  /** Stops block production and closes the database. */
  async close(): Promise<void> {
    await this.producer.stop();
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

function checkIdentity(state: ChainState, identity: NodeIdentity): void {
  if (state.chainId !== identity.genesis.chainId) {
    throw new Error(`the database holds chain ${state.chainId}, but genesis.json is for ${identity.genesis.chainId}`);
  }
  const address = Buffer.from(identity.validatorKey.address);
  const signs = (set: ChainState['validators']): boolean => set.validators.some((v) => address.equals(v.address));
  if (!signs(state.validators) || !signs(state.nextValidators)) {
    throw new Error(`the devnet's validator ${address.toString('hex').toUpperCase()} is not in the validator set, so it cannot sign blocks`);
  }
}
