import type { AppConfig } from '../config/config.types';
import type { Json, JsonObject } from '../rpc/json';
import { redactUrl } from '../backends/upstream/redact-url';

/** Keys whose values are secrets wherever they appear (a plugin's table included). */
const SECRET_KEY = /(password|secret|token|api[_-]?key|private)/i;
/** Keys holding URLs, which may carry credentials in their userinfo, path or query. */
const URL_KEY = /(^|_)(url|ws|follow)$/;

function redact(value: unknown, key: string): Json {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') {
    if (SECRET_KEY.test(key)) return value === '' ? '' : '[redacted]';
    if (URL_KEY.test(key) && value !== '') return redactUrl(value);
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, key));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, k)]));
  }
  return (value ?? null) as Json;
}

/**
 * The effective configuration as an operator may see it, file by file and table by table with the keys
 * of the files: URLs as scheme://host[:port], secrets hidden.
 */
export function redactedConfig(config: AppConfig): JsonObject {
  const { upstream, plugins, ...gateway } = config.gateway;
  // Plugin keys show as their files give them; the environment and flags that set others are not repeated.
  const { tables, overrides: _overrides, ...pluginKeys } = plugins;
  return redact(
    {
      home: config.home,
      'config.toml': { rpc: config.rpc, instrumentation: config.instrumentation },
      'app.toml': { 'json-rpc': config.jsonRpc },
      'gateway.toml': {
        ...gateway,
        plugins: { ...pluginKeys, ...tables },
        upstream: { ...upstream.settings, node: upstream.nodes, evm: upstream.evm },
      },
    },
    '',
  ) as JsonObject;
}
