import { randomBytes } from 'node:crypto';

/** go-ethereum's rpc.NewID: 0x + hex of 16 random bytes, leading zero digits dropped. */
export function newRpcId(): string {
  return '0x' + (randomBytes(16).toString('hex').replace(/^0+/, '') || '0');
}
