/**
 * The text of each config file as written on first start: the defaults, with a comment per key.
 * Written from this template rather than by a TOML serializer so that the comments survive.
 */
import { CONFIG_TABLES, TABLE_NAMES, tableSpec } from './config-tables';
import type { ConfigFileName, ValueKind } from './config-table-spec';
import { formatDuration } from './duration';

export const CONFIG_FILE_NAMES: readonly ConfigFileName[] = ['config.toml', 'app.toml', 'gateway.toml'];

const OVERRIDES = [
  '#',
  '# Durations are Go-style strings: "10s", "500ms", "1m30s". Every key can be overridden by the',
  '# environment variable RPCGW_<TABLE>_<KEY> (upper case, "-" as "_": RPCGW_RPC_LADDR,',
  '# RPCGW_JSON_RPC_WS_ADDRESS) or by the flag --set <table>.<key>=<value>.',
  '# Precedence: this file < environment < flags. See docs/configuration.md.',
];

const FILE_HEADERS: Record<ConfigFileName, readonly string[]> = {
  'config.toml': [
    "# rpc-gateway: node RPC settings, laid out as in CometBFT's config.toml.",
    '#',
    '# Only [rpc] and [instrumentation] are read: a node\'s own config.toml can be used as is, its other',
    '# tables and keys are ignored. This file was written with the defaults on first start.',
    ...OVERRIDES,
  ],
  'app.toml': [
    "# rpc-gateway: EVM JSON-RPC settings, laid out as in the [json-rpc] table of Evmos's app.toml.",
    '#',
    "# Only [json-rpc] is read: a node's own app.toml can be used as is, its other tables and keys are",
    '# ignored. This file was written with the defaults on first start.',
    ...OVERRIDES,
  ],
  'gateway.toml': [
    "# rpc-gateway's own settings: backend, embedded devnet, broadcast queue, cache, plugins, logging.",
    '#',
    '# This file was written with the defaults on first start.',
    ...OVERRIDES,
  ],
};

const RULE = '#'.repeat(79);

export function renderConfigFile(file: ConfigFileName): string {
  const lines = [...FILE_HEADERS[file]];
  for (const name of TABLE_NAMES.filter((n) => CONFIG_TABLES[n].file === file)) {
    const spec = tableSpec(name);
    lines.push('', RULE, `### ${spec.title}`, RULE, `[${name}]`);
    for (const [key, keySpec] of Object.entries(spec.keys)) {
      lines.push('', `# ${keySpec.doc}`, `${key} = ${renderValue(keySpec.kind, spec.defaults[key])}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A default as TOML, in the form its file uses (durations as Go strings, `api` as one string). */
export function renderValue(kind: ValueKind, value: unknown): string {
  if (kind === 'duration' && typeof value === 'number') return JSON.stringify(formatDuration(value));
  if (kind === 'comma-list' && Array.isArray(value)) return JSON.stringify(value.join(','));
  return renderToml(value);
}

/** A value as TOML; JSON string escapes are all valid TOML escapes. Inline tables only show up in errors. */
export function renderToml(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(renderToml).join(', ')}]`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) return JSON.stringify(value);
  return String(value);
}
