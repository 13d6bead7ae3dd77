/**
 * The public plugin API (`rpc-gateway/plugin-api`): everything a plugin may use, and nothing else of
 * the gateway's internals. A plugin adds methods to the node RPC or the EVM RPC; they are declared
 * exactly as the built-in ones are (`defineMethod`), so the same guards, codecs, caching, upstream
 * routing, metrics and transports apply to them. See docs/plugins.md.
 */
import type { AddressHistoryIndex, AddressTransactionsPage, ContractCreator, SearchDirection } from '../backends/backend-services';
import type { BlockRef, LogFilter, RpcBlock, RpcLog, RpcReceipt, RpcTransaction, TraceConfig, TransactionArgs } from '../evm-rpc/evm-types';
import type { FailedJob, LaneCounts, QueueStatus } from '../queue/broadcast-queue';
import type { BusEvent } from '../events/event-bus';
import type { PluginEvents } from './plugin-events';
import type { Json, JsonObject } from '../rpc/json';
import type { CallContext } from '../rpc/call-context';
import type { AnyMethod, ArgsOfMethod, ResultOf } from '../rpc/method';
import { keccak256 as ethersKeccak256 } from 'ethers';
import { table, type CheckedTable, type KeySpecs, type TableSpec } from '../config/config-table-spec';

/** The version of this API; a plugin names the one it was written for, and the gateway refuses others. */
export const PLUGIN_API_VERSION = 2;

export { defineMethod, param, optional, returns, IMMUTABLE, LATEST, NEVER } from '../rpc/method';
export type { AnyMethod, ArgsOf, ArgsOfMethod, CacheRule, MethodDefinition, MethodEnv, Param, ResultOf, Returns, SplitRule } from '../rpc/method';
export type { CallContext, JsonText, NotificationPort, NotificationStream, Transport } from '../rpc/call-context';
export { CodecError, type Codec } from '../rpc/codec';
/** A parameter that is an array of another codec's values, on either interface: `arrayOf(evmCodecs.address, { maxItems: 100 })`. */
export { arrayOf } from './array-codec';
export { ApplicationError, InvalidParamsError, RpcError } from '../rpc/errors';
export type { Json, JsonObject };
/** Node RPC parameter codecs (CometBFT's encodings: int64 as strings, base64 bytes, hex HexBytes, …). */
export * as nodeCodecs from '../node-rpc/params/codecs';
/** EVM parameter codecs (go-ethereum's: addresses, hashes, quantities, block numbers or hashes, …). */
export * as evmCodecs from '../evm-rpc/codec/codecs';
/** Cache rules and routing heights of EVM reads at a block. */
export { cacheAt, foundAt, heightAt, blockNumberOf, FOUND, MINED } from '../evm-rpc/block-rules';
export { parseQuery } from '../events/query';
/** Keccak-256 of bytes as lower-case 0x-hex: the EVM's hash (an EVM tx hash is that of the signed raw tx). */
export function keccak256(data: Uint8Array): string {
  return ethersKeccak256(data);
}
export type { BlockRef, LogFilter, TraceConfig, TransactionArgs, RpcBlock, RpcLog, RpcReceipt, RpcTransaction, PluginEvents, BusEvent };
/** The methods nodes answer, as definitions to invoke: `ctx.evm.invoke(evmMethods.eth_getBlockByNumber, {...})`. */
export * as evmMethods from '../evm-rpc/definitions';
export * as nodeMethods from '../node-rpc/definitions';
/** The devnet's address index (Otterscan's search, nonce and creator lookups). */
export type { AddressHistoryIndex, AddressTransactionsPage, ContractCreator, SearchDirection };

/**
 * Calls a method of one interface by its definition, through the backend that runs: arguments and result
 * typed by the definition. Pass the handler's call context as `ctx`: the call then stops at that call's
 * deadline (its `signal`: an upstream read is aborted on the wire, a devnet scan at its next slice).
 */
export interface PluginInvoker {
  invoke<M extends AnyMethod>(method: M, args: ArgsOfMethod<M>, ctx?: CallContext): Promise<ResultOf<M>>;
}

/** A plugin's logger: lines carry the plugin's name. */
export interface PluginLogger {
  debug(message: string): void;
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Label values by name. */
export type Labels = Readonly<Record<string, string>>;

/**
 * Metric families of a plugin, registered on the gateway's registry as
 * `<[instrumentation] namespace>_<name>` (so name them after the plugin: `ots_searches_total`).
 */
export interface PluginMetrics {
  counter(name: string, help: string, labelNames?: readonly string[]): { inc(labels?: Labels, value?: number): void };
  gauge(name: string, help: string, labelNames?: readonly string[]): { set(labels: Labels, value: number): void; inc(labels?: Labels, value?: number): void; dec(labels?: Labels, value?: number): void };
  histogram(name: string, help: string, labelNames?: readonly string[], buckets?: readonly number[]): { observe(labels: Labels, value: number): void };
}

/** One upstream node of a pool, as the operator sees it (its URL redacted to scheme://host:port). */
export type UpstreamStatus = Readonly<Record<string, string | number | boolean>>;

/** A response cache: hits, misses, evictions, bytes, entries, max_bytes and its tiers (`gateway_cache`'s fields). */
export type CacheStatus = Readonly<Record<string, Json>>;

/** A pool of upstream nodes: its head, its response cache (what `caches()` gives for its interface) and its nodes. */
export interface PoolStatus {
  readonly head: string;
  readonly cache: CacheStatus;
  readonly upstreams: readonly UpstreamStatus[];
}

/**
 * The broadcast queue: its driver (`redis`: BullMQ, durable; `memory`), whether its store answers and
 * this process delivers, its jobs by state for each backend lane (`node`, `evm`), and the latest jobs of
 * its failed set with their reasons.
 */
export type { QueueStatus, LaneCounts as QueueLaneCounts, FailedJob as QueueFailedJob };

/** What the operator's view of the gateway shows: read-only snapshots. */
export interface GatewayView {
  /** The gateway's version (package.json). */
  readonly version: string;
  /** `embedded` (the devnet) or `upstream` (pools of nodes). */
  readonly backend: 'embedded' | 'upstream';
  /** The upstream pools (upstream mode; none on the devnet). */
  pools(): { readonly node?: PoolStatus; readonly evm?: PoolStatus };
  /** The response caches, per interface: each upstream pool's (upstream mode), or the embedded devnet's. */
  caches(): { readonly node?: CacheStatus; readonly evm?: CacheStatus };
  /** The effective configuration of every file, with secrets (URL credentials, paths, keys) redacted. */
  config(): JsonObject;
  /** Every loaded plugin: name, version, interface, namespaces, methods and whether each is served. */
  plugins(): JsonObject[];
  /** The broadcast queue, read from its store (Redis or memory) now. */
  queue(): Promise<QueueStatus>;
}

/**
 * Subscriptions of a plugin's `websocketOnly` methods, made and ended exactly as built-in ones are: counted by
 * the per-client caps and the subscriptions gauge, ended by the interface's own unsubscribe and by the
 * connection's close.
 */
export interface PluginSubscriptions {
  /**
   * Opens a subscription on the calling client's WebSocket (`call`: the handler's call context). `name` is,
   * on the EVM RPC, the subscription's kind (a fixed word: the `kind` label of rpcgw_subscriptions); on the node
   * RPC, the client's query text (what its `unsubscribe` names; parsed, checked against `[rpc]`'s caps and
   * `already subscribed`). `start` gets `push(result)` (one notification; resolves as the connection's send
   * does) and `end(reason)` (ends the subscription, telling the client), and returns what stops the plugin's
   * source. Returns the subscription's id: on the EVM RPC the handler answers it (eth_unsubscribe takes it);
   * the node RPC's handler answers `{}`. Throws the interface's error (a cap, no WebSocket) as built-ins do.
   */
  open(
    call: CallContext,
    name: string,
    start: (push: (result: Json) => Promise<boolean> | undefined, end: (reason: string) => void) => () => void,
  ): string;
}

/** What a plugin's methods are built with. `C` is its own config table, as its `config.validate` returns it. */
export interface PluginContext<C> {
  /** The plugin's name. */
  readonly name: string;
  /** `[plugins.<name>]` of gateway.toml, validated. */
  readonly config: C;
  /** Node RPC methods, through the backend that runs (embedded devnet or upstream pool): `node.invoke(nodeMethods.block, {height})`. */
  readonly node: PluginInvoker;
  /** EVM methods, through the backend that runs: `evm.invoke(evmMethods.eth_getBlockByNumber, {block, fullTransactions})`. */
  readonly evm: PluginInvoker;
  /** The devnet's address index; absent in upstream mode, where nodes that have one serve Otterscan's methods themselves. */
  readonly addressHistory?: AddressHistoryIndex;
  /**
   * Node events (NewBlock, Tx, …) with their attributes, by query (`parseQuery`'s language): fed from the
   * nodes in upstream mode whether or not a client subscribed to the same query.
   */
  readonly events: PluginEvents;
  /** Subscriptions through the interface's own registry (the ids its unsubscribe knows, its caps). */
  readonly subscriptions: PluginSubscriptions;
  readonly logger: PluginLogger;
  readonly metrics: PluginMetrics;
  readonly gateway: GatewayView;
}

/**
 * A plugin's own config table, `[plugins.<name>]`: declared with `pluginConfig` (each key read, checked
 * and reported as the gateway's own keys are), or its defaults with a validation of the plugin's own.
 */
export type PluginConfig<C> = DeclaredPluginConfig<C> | CheckedPluginConfig<C>;

/** What `pluginConfig` makes: the keys' declarations and their validation class. */
export interface DeclaredPluginConfig<C> {
  readonly title: string;
  readonly defaults: Readonly<C>;
  readonly keys: KeySpecs;
  readonly schema: new () => object;
}

/** A plugin's own validation of its table. */
export interface CheckedPluginConfig<C> {
  readonly defaults: C;
  /** Gets `[plugins.<name>]` over the defaults; returns the typed table or throws `Error('key: expected …')`. */
  validate(table: Readonly<Record<string, unknown>>): C;
}

/**
 * Declares a plugin's config table as the gateway declares its own: each key a validator's reading
 * (`IsIntBetween(1, 100)`, `IsOneOf([...] as const)`, …) with its doc, and every key's default; the
 * table's type is inferred from them.
 */
export function pluginConfig<K extends KeySpecs>(spec: Omit<TableSpec<K>, 'file' | 'flagEveryKey'>): CheckedTable<K> {
  return table<K>({ file: 'gateway.toml', ...spec });
}

export type { KeySpec, KeySpecs, Reading, ValuesOf } from '../config/config-table-spec';
export { IsDurationAtLeast, IsFlag, IsIntAtLeast, IsIntBetween, IsMatching, IsNonEmptyText, IsNumberBetween, IsOneOf, IsTextList, IsUrlOrEmpty } from '../config/config-validators';

/** What a plugin module exports (as `default` or as the module itself): its manifest. */
export interface PluginManifest<C = Record<string, never>> {
  /** Lower-case name (`[a-z][a-z0-9-]*`): its config table is `[plugins.<name>]`. */
  readonly name: string;
  readonly version: string;
  /** The PLUGIN_API_VERSION it was written for. */
  readonly apiVersion: number;
  /** The interface it extends. */
  readonly interface: 'evm' | 'node';
  /**
   * EVM: the namespaces it adds (each method is `<namespace>_<name>` in its namespace, served when the
   * namespace is listed in `[json-rpc] api`). Node: the categories of its routes (served when listed in
   * `[plugins] node_api`).
   */
  readonly namespaces: readonly string[];
  readonly config?: PluginConfig<C>;
  /** Its method definitions, built once at start-up. */
  methods(context: PluginContext<C>): readonly AnyMethod[];
}

/** Declares a plugin (an identity function that types the manifest). */
export function definePlugin<C = Record<string, never>>(manifest: PluginManifest<C>): PluginManifest<C> {
  return manifest;
}
