/**
 * The address checks of dial_seeds and dial_peers (p2p/netaddress.go NewNetAddressString), with
 * Go's error texts. A host name is not looked up: CometBFT ignores lookup errors there as well.
 */
import { decodeGoHex } from '../../../devnet/bytes';

/** p2p.IDByteLength. */
const ID_BYTE_LENGTH = 20;

/** The error NewNetAddressString would return for `addr`, if any. */
export function netAddressError(addr: string): string | undefined {
  const withoutProtocol = addr.includes('://') ? addr.split('://')[1] : addr;
  const parts = withoutProtocol.split('@');
  if (parts.length !== 2) return noIdError(addr);
  const [id, hostPort] = parts;
  const idError = validateId(id);
  if (idError !== undefined) return `invalid address (${withoutProtocol}): ${idError}`;
  const split = splitHostPort(hostPort);
  if (typeof split === 'string') return `invalid address (${hostPort}): ${split}`;
  if (split.host === '') return `invalid address (${hostPort}): host is empty`;
  if (!/^\d+$/.test(split.port)) return `invalid address (${split.port}): strconv.ParseUint: parsing "${split.port}": invalid syntax`;
  if (Number(split.port) > 65535) return `invalid address (${split.port}): strconv.ParseUint: parsing "${split.port}": value out of range`;
  return undefined;
}

/** getIDs of dial_peers: every peer must name its node id. */
export function peerIdError(peer: string): string | undefined {
  return peer.split('@').length === 2 ? undefined : noIdError(peer);
}

function noIdError(addr: string): string {
  return `address (${addr}) does not contain ID`;
}

function validateId(id: string): string | undefined {
  if (id === '') return 'no ID';
  const bytes = decodeGoHex(id);
  if (!(bytes instanceof Uint8Array)) return bytes.error;
  if (bytes.length !== ID_BYTE_LENGTH) return `invalid hex length - got ${bytes.length}, expected ${ID_BYTE_LENGTH}`;
  return undefined;
}

/** net.SplitHostPort for the forms an address can take: host:port and [ipv6]:port. */
function splitHostPort(hostPort: string): { host: string; port: string } | string {
  const fail = (why: string): string => `address ${hostPort}: ${why}`;
  if (hostPort.startsWith('[')) {
    const end = hostPort.indexOf(']');
    if (end < 0) return fail("missing ']' in address");
    const rest = hostPort.slice(end + 1);
    if (rest === '') return fail('missing port in address');
    if (!rest.startsWith(':')) return fail(rest.includes(':') ? 'too many colons in address' : 'missing port in address');
    return { host: hostPort.slice(1, end), port: rest.slice(1) };
  }
  const colon = hostPort.lastIndexOf(':');
  if (colon < 0) return fail('missing port in address');
  const host = hostPort.slice(0, colon);
  if (host.includes(':')) return fail('too many colons in address');
  if (host.includes('[') || host.includes(']')) return fail(`unexpected '${host.includes('[') ? '[' : ']'}' in address`);
  return { host, port: hostPort.slice(colon + 1) };
}
