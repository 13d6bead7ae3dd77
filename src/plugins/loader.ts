import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../config/config-error';
import type { GatewayOwnConfig, PluginOverrides } from '../config/config.types';
import { flagKey } from '../config/config-sources';
import { EVM_NAMESPACES } from '../config/config-choices';
import { NODE_CATEGORIES } from '../node-rpc/categories';
import { RPC_NAMESPACE } from '../evm-rpc/core/rpc-modules';
import { PLUGIN_API_VERSION, type PluginManifest } from './api';
import { nearestName, suggestion } from '../config/nearest-name';
import { readTable } from '../config/read-declared';
import { renderToml } from '../config/config-template';

/** The folder of the gateway's package (plugins/ and node_modules/ live there). */
export const PROJECT_ROOT = resolve(__dirname, '..', '..');

/** A plugin as loaded: its manifest, where it came from, and its validated config table. */
export interface LoadedPlugin {
  readonly manifest: PluginManifest<unknown>;
  /** The `[plugins] load` entry. */
  readonly spec: string;
  /** The file it was loaded from. */
  readonly file: string;
  readonly config: unknown;
}

const LABEL = 'config/gateway.toml: [plugins]';
const NAME = /^[a-z][a-z0-9-]*$/;
const NAMESPACE = /^[a-z][a-z0-9]*$/;

/** A path (`./x`, `../x`, `plugins/x`, `/abs/x`) rather than an npm package name (`x`, `@scope/x`). */
function isPath(spec: string): boolean {
  return isAbsolute(spec) || spec.startsWith('.') || (spec.includes('/') && !spec.startsWith('@'));
}

/** A path is looked up under the home dir, then the project; a package name from both. */
function resolveSpec(spec: string, home: string): string {
  const bases = [home, PROJECT_ROOT];
  const tried: string[] = [];
  if (isPath(spec)) {
    for (const base of isAbsolute(spec) ? [''] : bases) {
      const target = isAbsolute(spec) ? spec : join(base, spec);
      tried.push(target);
      if (!existsSync(target) && !existsSync(`${target}.js`) && !existsSync(`${target}.ts`)) continue;
      return require.resolve(target);
    }
    throw new ConfigError(`${LABEL} load = ${JSON.stringify(spec)}: expected a plugin module; nothing at ${tried.join(' or ')}`);
  }
  try {
    return require.resolve(spec, { paths: bases });
  } catch {
    throw new ConfigError(`${LABEL} load = ${JSON.stringify(spec)}: expected an installed npm package (npm install ${spec})`);
  }
}

function fail(spec: string, expected: string): never {
  throw new ConfigError(`${LABEL} load = ${JSON.stringify(spec)}: expected ${expected}`);
}

/**
 * The manifests a module exports (as `default`, or as the module itself): one, an array of them, or
 * `{ evm, node }` (a package that extends both interfaces; either may be left out).
 */
function manifestsOf(spec: string, exported: unknown): PluginManifest<unknown>[] {
  const m = (exported as { default?: unknown } | null)?.default ?? exported;
  if (Array.isArray(m)) {
    if (m.length === 0) fail(spec, 'a module exporting a plugin manifest (definePlugin({...})), not an empty array');
    return m.map((one) => manifestOf(spec, one));
  }
  const pair = m as { name?: unknown; evm?: unknown; node?: unknown } | null;
  if (typeof pair === 'object' && pair !== null && pair.name === undefined && (pair.evm !== undefined || pair.node !== undefined)) {
    return (['evm', 'node'] as const).flatMap((rpc) => {
      if (pair[rpc] === undefined) return [];
      const manifest = manifestOf(spec, pair[rpc]);
      if (manifest.interface !== rpc) fail(spec, `plugin ${manifest.name} under "${rpc}" to extend "${rpc}" (it names ${JSON.stringify(manifest.interface)})`);
      return [manifest];
    });
  }
  return [manifestOf(spec, m)];
}

/** One manifest, checked field by field. */
function manifestOf(spec: string, m: unknown): PluginManifest<unknown> {
  if (typeof m !== 'object' || m === null) fail(spec, 'a module exporting a plugin manifest (definePlugin({...}))');
  const manifest = m as Partial<PluginManifest<unknown>>;
  if (typeof manifest.name !== 'string' || !NAME.test(manifest.name)) fail(spec, `a manifest name matching ${NAME} (got ${JSON.stringify(manifest.name)})`);
  const name = manifest.name;
  if (typeof manifest.version !== 'string' || manifest.version === '') fail(spec, `plugin ${name} to have a version`);
  if (manifest.apiVersion !== PLUGIN_API_VERSION) {
    fail(spec, `plugin ${name} written for plugin API version ${PLUGIN_API_VERSION} (it names ${JSON.stringify(manifest.apiVersion)})`);
  }
  if (manifest.interface !== 'evm' && manifest.interface !== 'node') fail(spec, `plugin ${name} to extend "evm" or "node" (got ${JSON.stringify(manifest.interface)})`);
  const namespaces = manifest.namespaces;
  if (!Array.isArray(namespaces) || namespaces.length === 0 || !namespaces.every((n) => typeof n === 'string' && NAMESPACE.test(n))) {
    fail(spec, `plugin ${name} to name its namespaces (lower-case words matching ${NAMESPACE})`);
  }
  if (typeof manifest.methods !== 'function') fail(spec, `plugin ${name} to have a methods(context) function`);
  const config = manifest.config;
  const checked = (c: object) => ('keys' in c ? typeof c.keys === 'object' : 'validate' in c && typeof c.validate === 'function');
  if (config !== undefined && (typeof config !== 'object' || config === null || typeof config.defaults !== 'object' || !checked(config))) {
    fail(spec, `plugin ${name}'s config to be pluginConfig({...}), or to have defaults and a validate function`);
  }
  return manifest as PluginManifest<unknown>;
}

/** The built-in groups a plugin namespace may not take, per interface. */
function builtIn(rpc: 'evm' | 'node'): ReadonlySet<string> {
  return new Set(rpc === 'evm' ? [...EVM_NAMESPACES, RPC_NAMESPACE] : NODE_CATEGORIES);
}

/** What the loader reads of the configuration: `[plugins]`, the plugins' tables, and their keys set outside the file. */
export type PluginSettings = Pick<GatewayOwnConfig['plugins'], 'load' | 'tables'> & { readonly overrides?: PluginOverrides };

/**
 * Loads the plugins `[plugins] load` names, in order: resolves each, checks its manifest, the plugin
 * API version, that its namespaces clash with no built-in one nor another plugin's, and validates its
 * `[plugins.<name>]` table (with its keys set by environment variables and flags). Any failure is one
 * ConfigError line.
 */
export function loadPlugins(settings: PluginSettings, home: string): LoadedPlugin[] {
  const loaded: LoadedPlugin[] = [];
  const owners = new Map<string, string>();
  for (const spec of settings.load) {
    const file = resolveSpec(spec, home);
    let exported: unknown;
    try {
      exported = require(file);
    } catch (err) {
      fail(spec, `a module that loads (it threw: ${(err as Error).message.split('\n')[0]})`);
    }
    for (const manifest of manifestsOf(spec, exported)) {
      if (loaded.some((p) => p.manifest.name === manifest.name)) fail(spec, `one plugin named ${manifest.name} (it is loaded twice)`);
      for (const namespace of manifest.namespaces) {
        const key = `${manifest.interface}:${namespace}`;
        if (builtIn(manifest.interface).has(namespace)) fail(spec, `plugin ${manifest.name}'s namespace ${namespace} not to be a built-in one`);
        const owner = owners.get(key);
        if (owner !== undefined) fail(spec, `plugin ${manifest.name}'s namespace ${namespace} not to be plugin ${owner}'s too`);
        owners.set(key, manifest.name);
      }
      loaded.push({ manifest, spec, file, config: validateTable(manifest, settings.tables[manifest.name] ?? {}, settings.overrides) });
    }
  }
  const names = loaded.map((p) => p.manifest.name);
  const loadedList = names.join(', ') || 'none';
  const unknown = Object.keys(settings.tables).filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new ConfigError(`config/gateway.toml: [plugins.${unknown[0]}]: expected the table of a loaded plugin (loaded: ${loadedList})`);
  const stray = Object.keys(settings.overrides?.flags ?? {}).find((flag) => !names.includes(pluginOfFlag(flag)));
  if (stray !== undefined) throw new ConfigError(`flag --set ${stray}: expected a key of a loaded plugin's table (loaded: ${loadedList})`);
  return loaded;
}

/** The plugin a `plugins.<name>.<key>` flag names. */
function pluginOfFlag(flag: string): string {
  return flagKey(flag).split('.')[1];
}

function validateTable(manifest: PluginManifest<unknown>, table: Record<string, unknown>, overrides: PluginOverrides | undefined): unknown {
  const config = manifest.config;
  const place = { file: 'config/gateway.toml', label: `[plugins.${manifest.name}]` };
  const flags = Object.fromEntries(Object.entries(overrides?.flags ?? {}).filter(([flag]) => pluginOfFlag(flag) === manifest.name));
  const flagged = Object.keys(flags)[0];
  if (config === undefined) {
    const key = Object.keys(table)[0];
    if (key !== undefined) throw new ConfigError(`${place.file}: ${place.label} ${key}: expected no keys (plugin ${manifest.name} takes no config)`);
    if (flagged !== undefined) throw new ConfigError(`flag --set ${flagged}: expected no keys (plugin ${manifest.name} takes no config)`);
    return {};
  }
  const defaults = config.defaults as Record<string, unknown>;
  if ('keys' in config) return readTable({ ...config, defaults }, table, place, { table: `plugins.${manifest.name}`, env: overrides?.env ?? {}, flags });
  // A table the plugin validates itself has no declared keys to read from the environment or flags.
  if (flagged !== undefined) throw new ConfigError(`flag --set ${flagged}: plugin ${manifest.name} reads its keys from ${place.file} only`);
  const known = Object.keys(defaults);
  const unknown = Object.keys(table).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw new ConfigError(`${place.file}: ${place.label} ${unknown} = ${renderToml(table[unknown])}: unknown key${suggestion(nearestName(unknown, known))}`);
  }
  try {
    return config.validate({ ...defaults, ...table });
  } catch (err) {
    throw new ConfigError(`${place.file}: ${place.label} ${(err as Error).message}`);
  }
}

/** The EVM namespaces of the plugins `[plugins]` loads (what `[json-rpc] api` may list besides the built-in ones). */
export function pluginNamespaces(settings: PluginSettings, home: string): string[] {
  return loadPlugins(settings, home).flatMap((p) => (p.manifest.interface === 'evm' ? [...p.manifest.namespaces] : []));
}
