/**
 * `[upstream]` and its `[[upstream.node]]` / `[[upstream.evm]]` arrays of tables in
 * `$HOME/config/gateway.toml`, validated with class-validator. A bad value throws one ConfigError line
 * naming the file, the key, the value and what was expected.
 */
import { applyDecorators } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { IsInt, IsNumber, IsString, Matches, Max, Min, MinLength, validateSync } from 'class-validator';
import { ConfigError } from './config-error';
import { isTomlTable, readConfigFile } from './config-files';
import { parseDuration } from './duration';

const FILE = 'config/gateway.toml';

/** What a pool needs of any upstream entry. */
export interface UpstreamEndpoint {
  readonly name: string;
  /** http(s):// URL of its JSON-RPC. */
  readonly url: string;
  readonly weight: number;
}

export interface UpstreamNodeConfig extends UpstreamEndpoint {
  /** http(s)://host:port of the node RPC; its `/websocket` serves subscriptions. */
  readonly url: string;
}

export interface UpstreamEvmConfig extends UpstreamEndpoint {
  /** http(s):// URL of the EVM JSON-RPC. */
  readonly url: string;
  /** ws(s):// URL; "" = no newHeads subscription from this upstream. */
  readonly ws: string;
}

/** Durations in milliseconds. */
export interface UpstreamSettings {
  health_check_interval: number;
  /** An upstream further than this many blocks behind the pool's highest is down. */
  max_height_lag: number;
  /** Health checks in a row that must go unanswered before a healthy upstream is marked down. */
  unhealthy_threshold: number;
  request_timeout: number;
  /** Extra attempts of an idempotent read after the first one fails. */
  retries: number;
  /** First backoff; doubles per retry, with jitter. */
  retry_backoff: number;
  /** Latency quantile (0..1) after which a hedged second attempt starts; 0 = no hedging. */
  hedge_quantile: number;
  hedge_min_delay: number;
  hedge_max_delay: number;
  /** Failures among the last `breaker_window` outcomes that open an upstream's breaker. */
  breaker_failures: number;
  breaker_window: number;
  breaker_open_time: number;
  /** Longest life of a latest-height answer (it also ends when a new block is seen); 0 = not cached. */
  latest_ttl: number;
  /** Blocks below the latest before an answer is cached as immutable (CometBFT: 0, instant finality). */
  finality_depth: number;
  /** eth_getLogs ranges longer than this many blocks are split into chunks spread over the EVM pool. */
  logs_chunk_blocks: number;
  /** Most calls sent to one upstream as one JSON-RPC batch; 1 = each call alone. */
  batch_max_size: number;
  /** How long a call waits for others to share its batch; 0 = those of the same event-loop turn only. */
  batch_max_wait: number;
  /** Most subscription sockets (CometBFT subscription clients) open to one node upstream. */
  max_subscription_clients: number;
  /** Most subscriptions on one of them: the upstream's own `[rpc] max_subscriptions_per_client`. */
  max_subscriptions_per_client: number;
}

export interface UpstreamConfig {
  readonly settings: UpstreamSettings;
  readonly nodes: readonly UpstreamNodeConfig[];
  readonly evm: readonly UpstreamEvmConfig[];
}

export const UPSTREAM_DEFAULTS: Readonly<UpstreamSettings> = {
  health_check_interval: 1_000,
  max_height_lag: 5,
  unhealthy_threshold: 2,
  request_timeout: 10_000,
  retries: 2,
  retry_backoff: 50,
  hedge_quantile: 0.95,
  hedge_min_delay: 50,
  hedge_max_delay: 2_000,
  breaker_failures: 5,
  breaker_window: 20,
  breaker_open_time: 10_000,
  latest_ttl: 1_000,
  finality_depth: 0,
  logs_chunk_blocks: 2_000,
  batch_max_size: 1,
  batch_max_wait: 0,
  max_subscription_clients: 10,
  max_subscriptions_per_client: 5,
};

const DURATION_KEYS = new Set<keyof UpstreamSettings>([
  'health_check_interval',
  'request_timeout',
  'retry_backoff',
  'hedge_min_delay',
  'hedge_max_delay',
  'breaker_open_time',
  'latest_ttl',
  'batch_max_wait',
]);

const msg = (what: string) => ({ message: `expected ${what}` });
const HTTP_URL = /^https?:\/\/[^\s/]+(\/[^\s]*)?$/;
const WS_URL = /^(wss?:\/\/[^\s/]+(\/[^\s]*)?)?$/;

/** An integer from `min` (to `max`), with one message for every check. */
function Int(min: number, what: string, max?: number): PropertyDecorator {
  const expected = msg(what);
  return applyDecorators(IsInt(expected), Min(min, expected), ...(max === undefined ? [] : [Max(max, expected)]));
}

class SettingsSchema implements UpstreamSettings {
  @Int(1, 'a duration > 0, such as "1s"') health_check_interval!: number;
  @Int(0, 'an integer >= 0') max_height_lag!: number;
  @Int(1, 'an integer >= 1') unhealthy_threshold!: number;
  @Int(1, 'a duration > 0, such as "10s"') request_timeout!: number;
  @Int(0, 'an integer from 0 to 10', 10) retries!: number;
  @Int(0, 'a duration >= 0') retry_backoff!: number;
  @IsNumber({}, msg('a number from 0 to 1')) @Min(0, msg('a number from 0 to 1')) @Max(1, msg('a number from 0 to 1')) hedge_quantile!: number;
  @Int(0, 'a duration >= 0') hedge_min_delay!: number;
  @Int(0, 'a duration >= 0') hedge_max_delay!: number;
  @Int(1, 'an integer >= 1') breaker_failures!: number;
  @Int(1, 'an integer >= 1') breaker_window!: number;
  @Int(1, 'a duration > 0') breaker_open_time!: number;
  @Int(0, 'a duration >= 0') latest_ttl!: number;
  @Int(0, 'an integer >= 0') finality_depth!: number;
  @Int(1, 'an integer >= 1') logs_chunk_blocks!: number;
  @Int(1, 'an integer from 1 to 1000', 1000) batch_max_size!: number;
  @Int(0, 'a duration >= 0') batch_max_wait!: number;
  @Int(1, 'an integer >= 1') max_subscription_clients!: number;
  @Int(1, 'an integer >= 1') max_subscriptions_per_client!: number;
}

class NodeSchema implements UpstreamNodeConfig {
  @IsString(msg('a non-empty string')) @MinLength(1, msg('a non-empty string')) name!: string;
  @IsString(msg('an http:// or https:// URL')) @Matches(HTTP_URL, msg('an http:// or https:// URL')) url!: string;
  @Int(1, 'an integer from 1 to 1000', 1000) weight!: number;
}

class EvmSchema extends NodeSchema implements UpstreamEvmConfig {
  @IsString(msg('a ws:// or wss:// URL or ""')) @Matches(WS_URL, msg('a ws:// or wss:// URL or ""')) ws!: string;
}

/** Reads the upstream configuration of `home` again (a reload); throws ConfigError on a bad value. */
export function reloadUpstreamConfig(home: string): UpstreamConfig {
  return parseUpstreamConfig(readConfigFile(home, 'gateway.toml'));
}

/** Validates an already parsed gateway.toml document. */
export function parseUpstreamConfig(doc: Record<string, unknown>): UpstreamConfig {
  const section = doc.upstream ?? {};
  if (!isTomlTable(section)) throw new ConfigError(`${FILE}: upstream = ${show(section)}: expected a table [upstream]`);
  const settings: Record<string, unknown> = { ...UPSTREAM_DEFAULTS };
  for (const key of Object.keys(UPSTREAM_DEFAULTS) as (keyof UpstreamSettings)[]) {
    if (!Object.hasOwn(section, key)) continue;
    const raw = section[key];
    settings[key] = DURATION_KEYS.has(key) ? readDuration(`[upstream] ${key}`, raw) : raw;
  }
  check(SettingsSchema, settings, (key) => `[upstream] ${key}`);
  const nodes = readArray(section, 'node', NodeSchema, { weight: 1 }) as UpstreamNodeConfig[];
  const evm = readArray(section, 'evm', EvmSchema, { weight: 1, ws: '' }) as UpstreamEvmConfig[];
  return { settings: settings as unknown as UpstreamSettings, nodes, evm };
}

function readArray(section: Record<string, unknown>, key: 'node' | 'evm', schema: new () => object, defaults: Record<string, unknown>): object[] {
  const list = section[key] ?? [];
  if (!Array.isArray(list)) throw new ConfigError(`${FILE}: upstream.${key} = ${show(list)}: expected an array of tables [[upstream.${key}]]`);
  const names = new Set<string>();
  return list.map((entry: unknown, i) => {
    const where = `[[upstream.${key}]] #${i + 1}`;
    if (!isTomlTable(entry)) throw new ConfigError(`${FILE}: ${where} = ${show(entry)}: expected a table`);
    const values = { ...defaults, ...entry };
    check(schema, values, (k) => `${where} ${k}`);
    const name = values.name as string;
    if (names.has(name)) throw new ConfigError(`${FILE}: ${where} name = ${show(name)}: expected a name not used by another [[upstream.${key}]]`);
    names.add(name);
    const url = (values.url as string).replace(/\/+$/, '');
    return { ...values, url };
  });
}

function check(schema: new () => object, values: Record<string, unknown>, label: (key: string) => string): void {
  const errors = validateSync(plainToInstance(schema, values), { stopAtFirstError: true, whitelist: false });
  const error = errors[0];
  if (!error) return;
  const expected = Object.values(error.constraints ?? {})[0] ?? 'expected a valid value';
  throw new ConfigError(`${FILE}: ${label(error.property)} = ${show(values[error.property])}: ${expected}`);
}

function readDuration(label: string, raw: unknown): unknown {
  if (typeof raw !== 'string') return Number.isInteger(raw) && raw === 0 ? 0 : `${show(raw)}`;
  const ms = parseDuration(raw);
  if (ms === undefined || ms < 0) throw new ConfigError(`${FILE}: ${label} = ${show(raw)}: expected a duration such as "500ms", "10s" or "1m30s"`);
  return ms;
}

function show(value: unknown): string {
  if (value === undefined) return '(missing)';
  return typeof value === 'bigint' ? value.toString() : JSON.stringify(value) ?? String(value);
}
