/** Where a server listens: a TCP host/port or a UNIX socket path. */
export type ListenAddress = { readonly kind: 'tcp'; readonly host: string; readonly port: number } | { readonly kind: 'unix'; readonly path: string };

/** Parses `tcp://host:port`, `unix:///path`, `host:port` or `:port` (all interfaces). */
export function parseListenAddress(text: string): ListenAddress {
  if (text.startsWith('unix://')) return { kind: 'unix', path: text.slice('unix://'.length) };
  const hostPort = text.startsWith('tcp://') ? text.slice('tcp://'.length) : text;
  const colon = hostPort.lastIndexOf(':');
  if (colon < 0) throw new Error(`listen address ${text}: expected host:port`);
  const host = hostPort.slice(0, colon).replace(/^\[|\]$/g, '') || '0.0.0.0';
  const port = Number(hostPort.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`listen address ${text}: bad port`);
  return { kind: 'tcp', host, port };
}

/** The address a started server actually listens on, in the configured style. */
export function formatListenAddress(address: ListenAddress): string {
  return address.kind === 'unix' ? `unix://${address.path}` : `tcp://${address.host}:${address.port}`;
}
