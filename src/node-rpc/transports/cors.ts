import type { FastifyCorsOptions } from '@fastify/cors';
import type { RpcConfig } from '../../config/config.types';

/** Origin patterns may hold one `*` wildcard, as rs/cors allows. */
function originMatcher(patterns: readonly string[]): (origin: string) => boolean {
  const exact = new Set(patterns.filter((p) => !p.includes('*')));
  const wild = patterns
    .filter((p) => p.includes('*'))
    .map((p) => {
      const [prefix, suffix] = p.toLowerCase().split('*', 2);
      return (o: string) => o.length >= prefix.length + suffix.length && o.startsWith(prefix) && o.endsWith(suffix);
    });
  return (origin) => exact.has(origin) || wild.some((m) => m(origin.toLowerCase()));
}

/** CORS for the node RPC from the `[rpc]` settings; `undefined` when off (no origins configured). */
export function nodeCorsOptions(rpc: RpcConfig): FastifyCorsOptions | undefined {
  const origins = rpc.cors_allowed_origins;
  if (origins.length === 0) return undefined;
  const anyOrigin = origins.includes('*');
  const allowed = originMatcher(origins);
  return {
    origin: anyOrigin ? '*' : (origin, cb) => cb(null, origin !== undefined && allowed(origin)),
    methods: rpc.cors_allowed_methods,
    allowedHeaders: rpc.cors_allowed_headers,
    optionsSuccessStatus: 204,
    preflightContinue: false,
    strictPreflight: false,
  };
}
