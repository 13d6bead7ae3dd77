/**
 * What logs, /health and errors may show of an upstream's URL: `scheme://host[:port]`. Providers put
 * API keys in the userinfo (`user:pass@`), the path (`/v2/<key>`) or the query (`?apikey=`), so none
 * of those is ever shown.
 */
export function redactUrl(url: string): string {
  try {
    const { protocol, host } = new URL(url);
    return `${protocol}//${host}`;
  } catch {
    return '(invalid URL)';
  }
}
