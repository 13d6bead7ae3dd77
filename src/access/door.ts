import type { IncomingMessage } from 'node:http';
import type { AccessService, Admission } from './access.service';
import { normalizeIp } from './client-address';
import { splitKeyPath } from './key-path';

/** A request at a transport's door: the path it routes (any `/key/<k>` prefix taken off) and who it is from. */
export type Entry = { readonly url: string } & Admission;

/**
 * Admits an HTTP request or a WebSocket upgrade (see AccessService.admit); without the access module
 * (an interface booted alone) every request is admitted as from its peer's address.
 */
export function enter(access: AccessService | undefined, req: IncomingMessage): Entry | Promise<Entry> {
  const { key, url } = splitKeyPath(req.url ?? '/');
  if (access === undefined) return { url, caller: { ip: normalizeIp(req.socket.remoteAddress ?? 'unix') } };
  const admission = access.admit(req, key);
  return admission instanceof Promise ? admission.then((a) => ({ url, ...a })) : { url, ...admission };
}

/** The Retry-After header's seconds for a wait in milliseconds (at least 1). */
export function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}
