/**
 * The sockets of WebSocket upgrades by client address, from admission until they close: when the
 * deployment-wide count finds a WebSocket's place was taken by another replica in the same instant,
 * one socket of that address on this replica is closed (any of them: the cap counts the address).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

export class UpgradeSockets {
  /** Upgrades admitted and not yet given a place, oldest first. */
  private readonly waiting = new Map<string, Duplex[]>();

  /** An upgrade of `ip` being judged; forgotten when its socket closes. */
  note(ip: string, req: IncomingMessage): void {
    const socket = req.socket;
    const list = this.waiting.get(ip) ?? [];
    list.push(socket);
    this.waiting.set(ip, list);
    socket.once('close', () => this.forget(ip, socket));
  }

  /** The socket of the oldest upgrade of `ip` still waiting for its place, which it now holds. */
  claim(ip: string): Duplex | undefined {
    const list = this.waiting.get(ip);
    const socket = list?.shift();
    if (list?.length === 0) this.waiting.delete(ip);
    return socket;
  }

  private forget(ip: string, socket: Duplex): void {
    const list = this.waiting.get(ip);
    if (list === undefined) return;
    const i = list.indexOf(socket);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.waiting.delete(ip);
  }
}
