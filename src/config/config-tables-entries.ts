/**
 * The arrays of tables of gateway.toml, declared as the other tables are: one entry's keys, their
 * checks, docs and defaults. `[[upstream.node]]` and `[[upstream.evm]]` list the upstream nodes,
 * `[[access.rate]]` the rate limits (an API key's own rules, `[[keys.rate]]`, are read the same way).
 */
import { entryTable, type CheckedEntryTable, type KeySpecs, type ValuesOf } from './config-table-spec';
import { IsIntAtLeast, IsIntBetween, IsMatching, IsMethodGlobList, IsNonEmptyText, IsOneOf, IsWholeSeconds } from './config-validators';

const HTTP_URL = /^https?:\/\/[^\s/]+(\/[^\s]*)?$/;
const WS_URL = /^(wss?:\/\/[^\s/]+(\/[^\s]*)?)?$/;

const name = { ...IsNonEmptyText(), doc: 'Names the upstream in logs, metrics and errors.' };
const weight = { ...IsIntBetween(1, 1000), doc: 'Share of the calls it gets among the healthy upstreams of its pool.' };
const httpUrl = (what: string) => ({ ...IsMatching(HTTP_URL, 'an http:// or https:// URL'), doc: what });

export const ENTRY_TABLES = {
  'upstream.node': entryTable({
    file: 'gateway.toml',
    title: 'A node RPC upstream (CometBFT) of upstream mode',
    defaults: { weight: 1 },
    unique: 'name',
    keys: { name, url: httpUrl('http(s)://host:port of its node RPC; its /websocket serves subscriptions.'), weight },
  }),

  'upstream.evm': entryTable({
    file: 'gateway.toml',
    title: 'An EVM JSON-RPC upstream of upstream mode',
    defaults: { weight: 1, ws: '' },
    unique: 'name',
    keys: {
      name,
      url: httpUrl('http(s):// URL of its EVM JSON-RPC.'),
      weight,
      ws: { ...IsMatching(WS_URL, 'a ws:// or wss:// URL or ""'), doc: 'ws(s):// URL of its WebSocket, for newHeads; "" = no subscription from this upstream.' },
    },
  }),

  'access.rate': entryTable({
    file: 'gateway.toml',
    title: 'A rate limit: at most limit calls of the matching methods per window, per client',
    defaults: { per: 'ip' },
    unique: 'name',
    keys: {
      name: {
        ...IsMatching(/^[A-Za-z0-9_.:-]+$/, 'a name of letters, digits and _ . : -'),
        doc: 'Names the rule in errors and in the limit label of refusals.',
      },
      methods: { ...IsMethodGlobList(), doc: 'Method names or globs (* = any characters): "eth_getLogs", "debug_*", "*".' },
      per: {
        ...IsOneOf(['ip', 'key'] as const),
        doc: 'ip: one budget per client address; key: one per API key (per address for a caller without one).',
      },
      limit: { ...IsIntAtLeast(1), doc: 'Calls allowed per window.' },
      window: { ...IsWholeSeconds(), doc: 'The budget\'s window, whole seconds: "1s", "1m", "1h".' },
    },
  }),
};

export type EntryName = keyof typeof ENTRY_TABLES;

export const ENTRY_NAMES = Object.keys(ENTRY_TABLES) as EntryName[];

/** One entry's value type, inferred from its declaration. */
export type EntryValue<N extends EntryName> = ValuesOf<(typeof ENTRY_TABLES)[N]['keys']>;

/** Loosely typed view of an entry table, for code that walks every key. */
export const entrySpec = (name: EntryName): CheckedEntryTable<KeySpecs> => ENTRY_TABLES[name];
