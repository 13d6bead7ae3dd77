/**
 * What a node's own config.toml (CometBFT v0.38) and app.toml (Cosmos SDK v0.50 with Evmos v20 or
 * cosmos/evm v0.7) hold besides the keys rpc-gateway reads (config-tables.ts): the keys of the tables it
 * serves that belong to the node (named at start-up as not served), and the tables that belong to the
 * node alone (accepted silently). Anything else in those tables is a typo, warned about.
 */
export interface NodeFileTables {
  /** Served tables: the node's keys there that the gateway does not serve. */
  readonly nodeKeys: Readonly<Record<string, readonly string[]>>;
  /** Tables of the node alone; their sub-tables too. */
  readonly nodeOnly: readonly string[];
}

export const NODE_TABLES: Readonly<Record<'config.toml' | 'app.toml', NodeFileTables>> = {
  'config.toml': {
    nodeKeys: {
      rpc: ['grpc_laddr', 'grpc_max_open_connections', 'pprof_laddr'],
      instrumentation: [],
    },
    nodeOnly: ['p2p', 'mempool', 'statesync', 'blocksync', 'fastsync', 'consensus', 'storage', 'tx_index'],
  },
  'app.toml': {
    nodeKeys: {
      'json-rpc': ['metrics-address', 'fix-revert-gas-refund-height', 'enable-indexer'],
      evm: ['tracer', 'max-tx-gas-wanted', 'cache-preimage', 'evm-chain-id', 'min-tip', 'geth-metrics-address'],
    },
    nodeOnly: ['telemetry', 'api', 'grpc', 'grpc-web', 'state-sync', 'streaming', 'mempool', 'rosetta', 'memiavl', 'versiondb', 'wasm', 'evm.mempool'],
  },
};
