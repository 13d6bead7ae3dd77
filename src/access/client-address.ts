import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** Addresses and CIDR ranges (`10.0.0.0/8`, `::1`), as `[access]` lists them, in one BlockList. */
export function addressSet(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return list;
}

/** An address as a budget and a cap count it: IPv4-mapped IPv6 (`::ffff:1.2.3.4`) as IPv4. */
export function normalizeIp(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** Whether `address` (a normalized IP) is in `set`. */
export function inSet(set: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && set.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The client's IP of a request: the peer's address, or, when the peer is a trusted proxy, the
 * right-most address of `X-Forwarded-For` that is not a trusted proxy (each proxy appends the address it
 * saw, so entries left of the first untrusted one may be forged by the client).
 */
export class ClientAddresses {
  private readonly trusted: BlockList;
  private readonly any: boolean;

  constructor(trustedProxies: readonly string[]) {
    this.trusted = addressSet(trustedProxies);
    this.any = trustedProxies.length > 0;
  }

  ipOf(req: IncomingMessage): string {
    const peer = normalizeIp(req.socket.remoteAddress ?? 'unix');
    if (!this.any || !inSet(this.trusted, peer)) return peer;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalizeIp(hops[i].trim());
      if (isIP(hop) === 0) break;
      client = hop;
      if (!inSet(this.trusted, hop)) break;
    }
    return client;
  }
}
