import type { IncomingHttpHeaders } from 'node:http';

/** Response headers as node:http's writeHead takes them: name, value, name, value, … */
export type HeaderList = readonly string[];

/** A CORS policy as rs/cors takes it (both CometBFT and Evmos serve their HTTP through rs/cors). */
export interface CorsPolicy {
  /** Allowed origins; `*` allows any, and an entry may hold one `*` wildcard (`https://*.example.com`). */
  readonly origins: readonly string[];
  readonly methods: readonly string[];
  readonly headers: readonly string[];
}

/** rs/cors' default policy, which Evmos applies to its HTTP server: any origin, simple methods and headers. */
export const RS_CORS_DEFAULT: CorsPolicy = { origins: ['*'], methods: ['GET', 'POST', 'HEAD'], headers: ['Origin', 'Accept', 'Content-Type', 'X-Requested-With'] };

export interface Cors {
  /** The headers of a 204 answering a preflight, or undefined when the request is not one. */
  preflight(method: string | undefined, headers: IncomingHttpHeaders): HeaderList | undefined;
  /** The headers of any other answer. */
  headers(method: string | undefined, headers: IncomingHttpHeaders): HeaderList;
}

function originMatcher(patterns: readonly string[]): (origin: string) => boolean {
  const exact = new Set(patterns.filter((p) => !p.includes('*')).map((p) => p.toLowerCase()));
  const wild = patterns
    .filter((p) => p.includes('*'))
    .map((p) => {
      const [prefix, suffix] = p.toLowerCase().split('*', 2);
      return (o: string) => o.length >= prefix.length + suffix.length && o.startsWith(prefix) && o.endsWith(suffix);
    });
  return (origin) => {
    const o = origin.toLowerCase();
    return exact.has(o) || wild.some((m) => m(o));
  };
}

function requestedHeaders(headers: IncomingHttpHeaders): string[] {
  const header = headers['access-control-request-headers'];
  return (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
}

/** rs/cors' handling of a policy: who may read answers, and what preflights grant. */
export function corsOf(policy: CorsPolicy): Cors {
  const anyOrigin = policy.origins.includes('*');
  const originAllowed = anyOrigin ? () => true : originMatcher(policy.origins);
  const methods = new Set(policy.methods.map((m) => m.toUpperCase()));
  // rs/cors always allows the Origin header.
  const allowedHeaders = new Set([...policy.headers.map((h) => h.toLowerCase()), 'origin']);
  const allowOrigin = (origin: string) => ['Access-Control-Allow-Origin', anyOrigin ? '*' : origin];
  return {
    preflight(method, headers) {
      if (method !== 'OPTIONS') return undefined;
      const preflightMethod = headers['access-control-request-method'];
      if (typeof preflightMethod !== 'string') return undefined;
      const out = ['Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers'];
      const origin = headers.origin;
      const requested = requestedHeaders(headers);
      const allowedMethod = preflightMethod.toUpperCase();
      if (origin && originAllowed(origin) && methods.has(allowedMethod) && requested.every((h) => allowedHeaders.has(h))) {
        out.push(...allowOrigin(origin), 'Access-Control-Allow-Methods', allowedMethod);
        if (requested.length > 0) out.push('Access-Control-Allow-Headers', requested.join(', '));
      }
      return out;
    },
    headers(method, headers) {
      const origin = headers.origin;
      if (!origin || method === undefined || !methods.has(method) || !originAllowed(origin)) return ['Vary', 'Origin'];
      return ['Vary', 'Origin', ...allowOrigin(origin)];
    },
  };
}
