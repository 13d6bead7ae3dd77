import type { IncomingHttpHeaders } from 'node:http';

/** rs/cors' default policy, which Evmos applies to its HTTP server: any origin, simple methods and headers. */
const ALLOWED_METHODS = new Set(['GET', 'POST', 'HEAD']);
const ALLOWED_HEADERS = new Set(['origin', 'accept', 'content-type', 'x-requested-with']);

/** Response headers as node:http's writeHead takes them: name, value, name, value, … */
export type HeaderList = readonly string[];

const VARY = ['Vary', 'Origin'];
const VARY_ANY_ORIGIN = ['Vary', 'Origin', 'Access-Control-Allow-Origin', '*'];

function requestedHeaders(headers: IncomingHttpHeaders): string[] {
  const header = headers['access-control-request-headers'];
  return (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
}

/** The headers of a 204 answering a preflight, or undefined when the request is not one. */
export function preflightHeaders(method: string | undefined, headers: IncomingHttpHeaders): HeaderList | undefined {
  if (method !== 'OPTIONS') return undefined;
  const preflightMethod = headers['access-control-request-method'];
  if (typeof preflightMethod !== 'string') return undefined;
  const out = ['Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers'];
  const requested = requestedHeaders(headers);
  const allowedMethod = preflightMethod.toUpperCase();
  // The grant only when the request is allowed.
  if (headers.origin && ALLOWED_METHODS.has(allowedMethod) && requested.every((h) => ALLOWED_HEADERS.has(h))) {
    out.push('Access-Control-Allow-Origin', '*', 'Access-Control-Allow-Methods', allowedMethod);
    if (requested.length > 0) out.push('Access-Control-Allow-Headers', requested.join(', '));
  }
  return out;
}

/** The headers that mark any other answer as readable by any origin. */
export function corsHeaders(method: string | undefined, headers: IncomingHttpHeaders): HeaderList {
  return headers.origin && method !== undefined && ALLOWED_METHODS.has(method) ? VARY_ANY_ORIGIN : VARY;
}
