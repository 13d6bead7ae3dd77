import type { JsonRpcConfig } from '../../config/config.types';
import { ApplicationError } from '../../rpc/errors';

/** Evmos's answer, on every transport, to a call that needs node-held keys while `allow-insecure-unlock = false`. */
export const UNLOCK_FORBIDDEN = 'account unlock with HTTP access is forbidden';

/** Throws Evmos's error unless `[json-rpc] allow-insecure-unlock` lets node-held keys be used over the RPC. */
export function requireInsecureUnlock(jsonRpc: JsonRpcConfig): void {
  if (!jsonRpc['allow-insecure-unlock']) throw new ApplicationError(UNLOCK_FORBIDDEN);
}
