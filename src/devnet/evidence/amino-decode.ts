/**
 * Reading the amino-JSON of an evidence parameter (libs/json): int64 as strings, int32 as numbers,
 * HexBytes as hex, []byte as base64, times as RFC 3339 in UTC. A value that does not fit is a
 * parameter error, with the decoder's texts where it has them.
 */
import type { BlockId, Timestamp } from '../chain/types';
import { parseTimestamp, ZERO_TIME } from '../time';

export class EvidenceDecodeError extends Error {
  override readonly name = 'EvidenceDecodeError';
}

export type JsonFields = Record<string, unknown>;

export function objectField(fields: JsonFields, name: string): JsonFields | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new EvidenceDecodeError(`${name} must be an object`);
  return value as JsonFields;
}

export function int64Field(fields: JsonFields, name: string): bigint {
  const value = fields[name];
  if (value === undefined || value === null) return 0n;
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) {
    throw new EvidenceDecodeError(`invalid 64-bit integer encoding ${JSON.stringify(JSON.stringify(value))}, expected string`);
  }
  return BigInt(value);
}

export function int32Field(fields: JsonFields, name: string): number {
  const value = fields[name];
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new EvidenceDecodeError(`${name} must be an integer`);
  return value;
}

export function hexField(fields: JsonFields, name: string): Uint8Array {
  const value = fields[name];
  if (value === undefined || value === null) return new Uint8Array(0);
  if (typeof value !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(value)) throw new EvidenceDecodeError(`invalid hex string: ${JSON.stringify(value)}`);
  return new Uint8Array(Buffer.from(value, 'hex'));
}

export function base64Field(fields: JsonFields, name: string): Uint8Array {
  const value = fields[name];
  if (value === undefined || value === null) return new Uint8Array(0);
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
    throw new EvidenceDecodeError(`illegal base64 data in ${name}`);
  }
  return new Uint8Array(Buffer.from(value, 'base64'));
}

export function timeField(fields: JsonFields, name: string): Timestamp {
  const value = fields[name];
  if (value === undefined || value === null) return ZERO_TIME;
  const text = JSON.stringify(value);
  const ts = typeof value === 'string' ? parseTimestamp(value) : undefined;
  if (ts === undefined) throw new EvidenceDecodeError(`JSON time must be an RFC3339 string, but got ${JSON.stringify(text)}`);
  if (!String(value).endsWith('Z')) throw new EvidenceDecodeError(`JSON time must be UTC and end with 'Z', but got ${JSON.stringify(text)}`);
  return ts;
}

export function blockIdField(fields: JsonFields, name: string): BlockId {
  const raw = objectField(fields, name) ?? {};
  const parts = objectField(raw, 'parts') ?? {};
  return { hash: hexField(raw, 'hash'), partSetHeader: { total: int32Field(parts, 'total'), hash: hexField(parts, 'hash') } };
}
