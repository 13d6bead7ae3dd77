import type { IncomingHttpHeaders } from 'node:http';

const PREFIX = '/key/';

/**
 * A request URL with a `/key/<k>` prefix split into the key and the path the transport routes
 * (`/key/abc/status?x=1` → `abc` and `/status?x=1`; `/key/abc` → `abc` and `/`).
 */
export function splitKeyPath(url: string): { readonly key?: string; readonly url: string } {
  if (!url.startsWith(PREFIX)) return { url };
  const rest = url.slice(PREFIX.length);
  const end = rest.search(/[/?]/);
  const key = decode(end < 0 ? rest : rest.slice(0, end));
  const tail = end < 0 ? '' : rest.slice(end);
  return { key, url: tail.startsWith('/') ? tail : `/${tail}` };
}

/** The API key a request presents: `Authorization: Bearer <k>`, then `x-api-key`, then the path's. */
export function presentedKey(headers: IncomingHttpHeaders, pathKey: string | undefined): string | undefined {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const header = headers['x-api-key'];
  const apiKey = Array.isArray(header) ? header[0] : header;
  if (apiKey !== undefined && apiKey.trim() !== '') return apiKey.trim();
  return pathKey === '' ? undefined : pathKey;
}

/** Percent-decoded, or as written when it is not valid percent-encoding (no key then matches it). */
function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
