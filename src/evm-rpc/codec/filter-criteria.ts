import type { BlockRef, LogFilter } from '../evm-types';
import { decodeBlockNumber } from './block-number';
import { CodecError } from './codec-error';
import { decodeHash, HASH } from './fixed-bytes';
import { goMembers, isObject, jsonKind, typeError } from './go-json';
import { dataDigits, checkHexDigits } from './hex';

const STRUCT = 'input';

/** hexutil.Decode of an address or topic, with filters' own length message. */
function decodeFixedHex(text: string, bytes: number, what: 'address' | 'topic'): string {
  const digits = dataDigits(text);
  if (text.length === 0) throw new CodecError('empty hex string');
  checkHexDigits(digits);
  if (digits.length / 2 !== bytes) {
    throw new CodecError(`hex has invalid length ${digits.length / 2} after decoding; expected ${bytes} for ${what}`);
  }
  return '0x' + digits.toLowerCase();
}

function decodeAddresses(value: unknown): string[] {
  if (typeof value === 'string') {
    try {
      return [decodeFixedHex(value, 20, 'address')];
    } catch (err) {
      throw new CodecError(`invalid address: ${(err as Error).message}`);
    }
  }
  if (!Array.isArray(value)) throw new CodecError('invalid addresses in query');
  return value.map((item, i) => {
    if (typeof item !== 'string') throw new CodecError(`non-string address at index ${i}`);
    try {
      return decodeFixedHex(item, 20, 'address');
    } catch (err) {
      throw new CodecError(`invalid address at index ${i}: ${(err as Error).message}`);
    }
  });
}

const INVALID_TOPIC = 'invalid topic(s)';

/** One topic position: null (any), a topic, or a list of alternatives (a null in it = any). */
function decodeTopicPosition(value: unknown): string[] | null {
  if (value === null) return null;
  if (typeof value === 'string') return [decodeFixedHex(value, HASH.bytes, 'topic')];
  if (!Array.isArray(value)) throw new CodecError(INVALID_TOPIC);
  const alternatives: string[] = [];
  for (const item of value) {
    if (item === null) return null;
    if (typeof item !== 'string') throw new CodecError(INVALID_TOPIC);
    alternatives.push(decodeFixedHex(item, HASH.bytes, 'topic'));
  }
  return alternatives;
}

/** go-ethereum's FilterCriteria: blockHash, or fromBlock/toBlock; address(es); topics. */
export function decodeFilterCriteria(value: unknown): LogFilter {
  if (value === null) return {};
  if (!isObject(value)) throw typeError(jsonKind(value), 'filters.input');
  const members = goMembers(value);
  const present = (key: string): unknown => (members.get(key) === null ? undefined : members.get(key));
  const rawHash = present('blockhash');
  const rawFrom = present('fromblock');
  const rawTo = present('toblock');
  const rawTopics = present('topics');
  const blockHash = rawHash === undefined ? undefined : decodeHash(rawHash, { struct: STRUCT, path: 'blockHash' });
  const fromBlock: BlockRef | undefined = rawFrom === undefined ? undefined : decodeBlockNumber(rawFrom);
  const toBlock: BlockRef | undefined = rawTo === undefined ? undefined : decodeBlockNumber(rawTo);
  if (rawTopics !== undefined && !Array.isArray(rawTopics)) {
    throw typeError(jsonKind(rawTopics), '[]interface {}', { struct: STRUCT, path: 'topics' });
  }
  if (blockHash !== undefined && (fromBlock !== undefined || toBlock !== undefined)) {
    throw new CodecError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
  }
  const rawAddress = present('address');
  const filter: { -readonly [K in keyof LogFilter]: LogFilter[K] } = {};
  if (blockHash !== undefined) filter.blockHash = blockHash;
  if (fromBlock !== undefined) filter.fromBlock = fromBlock;
  if (toBlock !== undefined) filter.toBlock = toBlock;
  if (rawAddress !== undefined) filter.address = decodeAddresses(rawAddress);
  if (rawTopics !== undefined) filter.topics = (rawTopics as unknown[]).map(decodeTopicPosition);
  return filter;
}
