/**
 * `rpc-gateway config check`: the effective configuration, key by key with where each value came from
 * (a file, the environment, a flag, or the default), secrets redacted, then every warning.
 */
import type { AppConfig } from './config.types';
import { CONFIG_TABLES, TABLE_NAMES, tableSpec, type TableName } from './config-tables';
import { renderToml, renderValue } from './config-template';
import type { ResolvedConfig } from './load-config';

/** A table's resolved values, by its name in the files. */
export function tableValues(config: AppConfig, name: TableName): Record<string, unknown> {
  if (name === 'rpc') return { ...config.rpc };
  if (name === 'instrumentation') return { ...config.instrumentation };
  if (name === 'json-rpc') return { ...config.jsonRpc };
  if (name === 'tls') return { ...config.tls };
  if (name === 'upstream') return { ...config.gateway.upstream.settings };
  return { ...config.gateway[name] };
}

/** A URL's password (`redis://:secret@host`) and query string (API keys of hosted nodes) as `***`. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  try {
    const url = new URL(value);
    if (url.password === '' && url.search === '') return value;
    if (url.password !== '') url.password = '***';
    if (url.search !== '') url.search = '?***';
    return url.toString();
  } catch {
    return value;
  }
}

const line = (key: string, value: string, origin: string): string => `  ${`${key} = ${value}`.padEnd(56)} # ${origin}`;

/** The report `config check` prints. */
export function formatConfigCheck({ config, warnings, origins }: ResolvedConfig): string {
  const out = [`# rpc-gateway configuration of ${config.home}: value, then where it came from`];
  for (const name of TABLE_NAMES) {
    const spec = tableSpec(name);
    const values = tableValues(config, name);
    out.push('', `[${name}]  # ${CONFIG_TABLES[name].file}`);
    for (const [key, keySpec] of Object.entries(spec.keys)) {
      out.push(line(key, renderValue(keySpec.kind, redact(values[key])), origins.get(`${name}.${key}`) ?? 'default'));
    }
  }
  const upstream = config.gateway.upstream;
  for (const [kind, entries] of [['node', upstream.nodes], ['evm', upstream.evm]] as const) {
    for (const entry of entries) out.push(`  [[upstream.${kind}]] ${renderToml(redact(entry.url))} name ${renderToml(entry.name)} weight ${entry.weight}`);
  }
  for (const rule of config.gateway.access.rate) {
    out.push(`  [[access.rate]] ${renderToml(rule.name)}: ${rule.limit} per ${rule.window / 1000}s per ${rule.per}, methods ${renderToml(rule.methods)}`);
  }
  out.push('', warnings.length === 0 ? '# no warnings' : `# ${warnings.length} warning(s)`, ...warnings.map((w) => `warning: ${w}`));
  return `${out.join('\n')}\n`;
}
