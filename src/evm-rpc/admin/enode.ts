import { SigningKey } from 'ethers';
import { ApplicationError } from '../../rpc/errors';

const INCOMPLETE = /^enode:\/\/([0-9a-fA-F]+)$/;

function checkPublicKey(hex: string): void {
  if (hex.length !== 128) throw new Error('invalid public key (wrong length, want 128 hex chars)');
  try {
    SigningKey.computePublicKey('0x04' + hex);
  } catch {
    throw new Error('invalid public key (invalid secp256k1 curve point)');
  }
}

/** go-ethereum's enode.Parse checks; admin_addPeer and friends answer `invalid enode: <reason>`. */
export function checkEnode(text: string): void {
  try {
    const incomplete = INCOMPLETE.exec(text);
    if (incomplete) return checkPublicKey(incomplete[1]);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new Error('invalid URL scheme, want "enode"');
    }
    if (url.protocol !== 'enode:') throw new Error('invalid URL scheme, want "enode"');
    if (url.username === '') throw new Error('does not contain node ID');
    checkPublicKey(url.username);
    if (!/^[0-9]+$/.test(url.port) || Number(url.port) > 65535) throw new Error('invalid port');
  } catch (err) {
    throw new ApplicationError(`invalid enode: ${(err as Error).message}`);
  }
}
