import { defineMethod, param, returns } from '../../rpc/method';
import type { JsonObject } from '../../rpc/json';
import { bool, strings } from '../params/codecs';

/** Unsafe methods: served only with `[rpc] unsafe = true`. */
const base = { group: 'unsafe', unsafe: true, result: returns<JsonObject>() } as const;

export const dial_seeds = defineMethod({ ...base, name: 'dial_seeds', params: [param('seeds', strings)] });
export const dial_peers = defineMethod({
  ...base,
  name: 'dial_peers',
  params: [param('peers', strings), param('persistent', bool), param('unconditional', bool), param('private', bool)],
});
export const unsafe_flush_mempool = defineMethod({ ...base, name: 'unsafe_flush_mempool', params: [] });

export const unsafeMethods = [dial_seeds, dial_peers, unsafe_flush_mempool];
