/** Go's %v renderings that evidence errors embed. */
import type { BlockId, Timestamp } from '../chain/types';
import { hexJson, timestampJson } from '../chain/wire';
import { fingerprint } from '../chain/vote-string';

/** time.Time.String() of a UTC time: `2006-01-02 15:04:05.999999999 +0000 UTC`. */
export function goTimeString(ts: Timestamp): string {
  return `${timestampJson(ts).replace('T', ' ').replace(/Z$/, '')} +0000 UTC`;
}

/** BlockID.String(): `HASH:total:FINGERPRINT`. */
export function blockIdString(id: BlockId): string {
  return `${hexJson(id.hash)}:${id.partSetHeader.total}:${fingerprint(id.partSetHeader.hash)}`;
}
