import type { Server } from 'node:http';
import { ConfigError } from '../../config/config-error';
import type { AddressInfo } from 'node:net';
import { parseListenAddress, type ListenAddress } from './listen-address';

export type UrlScheme = 'http' | 'https' | 'ws' | 'wss';

/** The URL a listening server is reachable at (ephemeral ports resolved). */
export function boundUrl(server: Server, target: ListenAddress, scheme: UrlScheme): string {
  if (target.kind === 'unix') return `unix://${target.path}`;
  const info = server.address() as AddressInfo;
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  return `${scheme}://${host}:${info.port}`;
}

/** Listens on a `[json-rpc]` address (host:port, tcp://, unix://) and resolves with the bound URL. */
export function listen(server: Server, address: string, scheme: UrlScheme): Promise<string> {
  const target = parseListenAddress(address);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = (): void => {
      server.off('error', reject);
      resolve(boundUrl(server, target, scheme));
    };
    if (target.kind === 'unix') server.listen(target.path, done);
    else server.listen(target.port, target.host, done);
  });
}

const BIND_FAILURES: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the address is already in use',
  EACCES: 'permission denied (a port below 1024 needs privileges)',
  EADDRNOTAVAIL: 'no interface of this host has that address',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (DNS lookup failed)',
  EAI_FAIL: 'the host name does not resolve (DNS lookup failed)',
};

/**
 * A listener that cannot bind, as one start-up line naming where its address is set (`setting`, such
 * as `config/config.toml: [rpc] laddr`), the address and why.
 */
export function bindError(setting: string, address: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const why = BIND_FAILURES[code] ?? (error as Error).message;
  return new ConfigError(`${setting} = ${JSON.stringify(address)}: cannot listen: ${why}`);
}

/** Stops accepting and drops every open connection. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
