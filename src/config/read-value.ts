import { parse as parseToml } from 'smol-toml';
import type { ValueKind } from './config-table-spec';
import { UINT64_MAX } from '../rpc/int-bounds';
import { parseDuration } from './duration';

/** Where a raw value came from: a TOML file keeps its types; the environment and flags give text. */
export type RawSource = 'toml' | 'text';

/**
 * Reads a raw value as its kind, or `undefined` when it is not one; validation then reports the key
 * with what it expects, so a type error and a range error read the same.
 */
export function readValue(kind: ValueKind, raw: unknown, source: RawSource): unknown {
  const text = source === 'text' && typeof raw === 'string' ? raw.trim() : undefined;
  switch (kind) {
    case 'string':
      return typeof raw === 'string' ? raw : undefined;
    case 'boolean':
      return typeof raw === 'boolean' ? raw : text === undefined ? undefined : readBoolean(text);
    case 'integer':
      if (typeof raw === 'number') return Number.isInteger(raw) ? raw : undefined;
      return text !== undefined && /^[+-]?\d+$/.test(text) ? Number(text) : undefined;
    case 'uint64':
      return readUint64(raw, text);
    case 'number':
      if (typeof raw === 'number') return raw;
      return text !== undefined && text !== '' && Number.isFinite(Number(text)) ? Number(text) : undefined;
    case 'duration':
      // A bare 0 is a duration too, as a node's own config reader takes it.
      return typeof raw === 'string' ? parseDuration(raw) : raw === 0 ? 0 : undefined;
    case 'list':
    case 'comma-list':
      if (Array.isArray(raw)) return raw;
      if (text !== undefined) return text.startsWith('[') ? readTomlArray(text) : splitList(text);
      return kind === 'comma-list' && typeof raw === 'string' ? splitList(raw) : undefined;
  }
}

/** An unsigned 64-bit integer, past 2^53−1 read as 2^53−1; a value out of range is kept for the error. */
function readUint64(raw: unknown, text: string | undefined): unknown {
  const value = typeof raw === 'bigint' ? raw : typeof raw === 'number' && Number.isInteger(raw) ? BigInt(raw) : text !== undefined && /^\+?\d+$/.test(text) ? BigInt(text) : undefined;
  if (value === undefined) return typeof raw === 'number' ? raw : undefined;
  if (value < 0n || value > UINT64_MAX) return Number(value);
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

/** The spellings Go's strconv.ParseBool accepts, as a node's own flags do. */
function readBoolean(text: string): boolean | undefined {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  return undefined;
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function readTomlArray(text: string): unknown {
  try {
    return parseToml(`value = ${text}`).value;
  } catch {
    return undefined;
  }
}
