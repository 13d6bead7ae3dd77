/**
 * The `[[upstream.node]]` / `[[upstream.evm]]` lists of `$HOME/config/gateway.toml` (the `[upstream]`
 * settings are a table of config-tables.ts), validated with class-validator. A bad value throws one
 * ConfigError line naming the file, the entry, the key, the value and what was expected.
 */
import { plainToInstance } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min, MinLength, validateSync } from 'class-validator';
import { ConfigError } from './config-error';
import { isTomlTable, readConfigFile } from './config-files';
import { CONFIG_TABLES } from './config-tables';
import type { UpstreamSettings } from './config.types';

export type { UpstreamSettings } from './config.types';

/** The built-in `[upstream]` settings. */
export const UPSTREAM_DEFAULTS: Readonly<UpstreamSettings> = CONFIG_TABLES.upstream.defaults;

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

export interface UpstreamLists {
  readonly nodes: readonly UpstreamNodeConfig[];
  readonly evm: readonly UpstreamEvmConfig[];
}

/** `[upstream]` with its `[[upstream.node]]` and `[[upstream.evm]]` lists. */
export interface UpstreamConfig extends UpstreamLists {
  readonly settings: UpstreamSettings;
}

const msg = (what: string) => ({ message: `expected ${what}` });
const HTTP_URL = /^https?:\/\/[^\s/]+(\/[^\s]*)?$/;
const WS_URL = /^(wss?:\/\/[^\s/]+(\/[^\s]*)?)?$/;

class NodeSchema implements UpstreamNodeConfig {
  @IsString(msg('a non-empty string')) @MinLength(1, msg('a non-empty string')) name!: string;
  @IsString(msg('an http:// or https:// URL')) @Matches(HTTP_URL, msg('an http:// or https:// URL')) url!: string;
  @IsInt(msg('an integer from 1 to 1000')) @Min(1, msg('an integer from 1 to 1000')) @Max(1000, msg('an integer from 1 to 1000')) weight!: number;
}

class EvmSchema extends NodeSchema implements UpstreamEvmConfig {
  @IsString(msg('a ws:// or wss:// URL or ""')) @Matches(WS_URL, msg('a ws:// or wss:// URL or ""')) ws!: string;
}

/** Reads the upstream lists of `home` again (a reload); throws ConfigError on a bad value. */
export function reloadUpstreamLists(home: string): UpstreamLists {
  return parseUpstreamLists(readConfigFile(home, 'gateway.toml'));
}

/** Validates the lists of an already parsed gateway.toml document. */
export function parseUpstreamLists(doc: Record<string, unknown>): UpstreamLists {
  const section = doc.upstream ?? {};
  if (!isTomlTable(section)) throw new ConfigError(`${FILE}: upstream = ${show(section)}: expected a table [upstream]`);
  const nodes = readArray(section, 'node', NodeSchema, { weight: 1 }) as UpstreamNodeConfig[];
  const evm = readArray(section, 'evm', EvmSchema, { weight: 1, ws: '' }) as UpstreamEvmConfig[];
  return { nodes, evm };
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

function show(value: unknown): string {
  if (value === undefined) return '(missing)';
  return typeof value === 'bigint' ? value.toString() : JSON.stringify(value) ?? String(value);
}
