/**
 * `[json-rpc] ws-origins`: an Origin is allowed when its hostname is listed (or `*` is); a request
 * without Origin (not a browser) is always allowed; an empty list allows no browser at all.
 */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  if (allowed.includes('*')) return true;
  let hostname: string;
  try {
    hostname = new URL(origin).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  return allowed.some((entry) => entry.toLowerCase() === hostname);
}
