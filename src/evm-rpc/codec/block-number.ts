import type { BlockRef, BlockTag } from '../evm-types';
import { CodecError } from './codec-error';
import { fixedText, HASH } from './fixed-bytes';
import { isObject, jsonKind, goMembers, decodeBool } from './go-json';
import { decodeUint64Text } from './hex';
import { INT64_MAX } from '../../rpc/int-bounds';

const TAGS: ReadonlySet<string> = new Set<BlockTag>(['latest', 'pending', 'earliest', 'safe', 'finalized']);

function tagOrNumber(text: string, tooHigh: string): BlockRef {
  if (TAGS.has(text)) return { kind: 'tag', tag: text as BlockTag };
  const number = decodeUint64Text(text);
  if (number > INT64_MAX) throw new CodecError(tooHigh);
  return { kind: 'number', number };
}

/**
 * rpc.BlockNumber: a tag or a strict 0x quantity. Its decoder reads the raw JSON text, so a bare
 * number (or null) fails as `hex string without 0x prefix`; errors are not wrapped.
 */
export function decodeBlockNumber(value: unknown): BlockRef {
  return tagOrNumber(typeof value === 'string' ? value : JSON.stringify(value), 'block number larger than int64');
}

/** The EIP-1898 object form; any failure inside it surfaces as go-ethereum's fallback string error. */
function blockObject(value: Record<string, unknown>): BlockRef {
  let number: BlockRef | undefined;
  let hash: string | undefined;
  let requireCanonical = false;
  try {
    const members = goMembers(value);
    const rawNumber = members.get('blocknumber');
    const rawHash = members.get('blockhash');
    if (rawNumber !== undefined && rawNumber !== null) number = decodeBlockNumber(rawNumber);
    if (rawHash !== undefined && rawHash !== null) hash = decodeHashJson(rawHash);
    requireCanonical = decodeBool(members.get('requirecanonical') ?? null);
  } catch (err) {
    if (err instanceof CodecError) throw new CodecError('json: cannot unmarshal object into Go value of type string');
    throw err;
  }
  if (number && hash) throw new CodecError('cannot specify both BlockHash and BlockNumber, choose one or the other');
  if (hash) return { kind: 'hash', hash, requireCanonical };
  if (number) return number;
  throw new CodecError('types BlockHash and BlockNumber cannot be both nil');
}

function decodeHashJson(value: unknown): string {
  if (typeof value !== 'string') throw new CodecError('non-string');
  return fixedText(value, HASH);
}

/**
 * rpc.BlockNumberOrHash: a tag, a 0x quantity, a 66-character block hash, or the EIP-1898 object
 * `{blockNumber}` / `{blockHash, requireCanonical}`.
 */
export function decodeBlockNumberOrHash(value: unknown): BlockRef {
  if (isObject(value) || value === null) return blockObject(value ?? {});
  if (typeof value !== 'string') throw new CodecError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
  if (!TAGS.has(value) && value.length === 66) return { kind: 'hash', hash: fixedText(value, HASH), requireCanonical: false };
  return tagOrNumber(value, 'blocknumber too high');
}
