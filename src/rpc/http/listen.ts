import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseListenAddress, type ListenAddress } from './listen-address';

/** The URL a listening server is reachable at (ephemeral ports resolved). */
export function boundUrl(server: Server, target: ListenAddress, scheme: 'http' | 'ws'): string {
  if (target.kind === 'unix') return `unix://${target.path}`;
  const info = server.address() as AddressInfo;
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  return `${scheme}://${host}:${info.port}`;
}

/** Listens on a `[json-rpc]` address (host:port, tcp://, unix://) and resolves with the bound URL. */
export function listen(server: Server, address: string, scheme: 'http' | 'ws'): Promise<string> {
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

/** Stops accepting and drops every open connection. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
