import { CodecError } from './codec-error';

/** Where a value sits, for Go's `Go struct field <Struct>.<path>` wording. */
export interface GoField {
  readonly struct: string;
  readonly path: string;
}

/** Go's name for the kind of a JSON value, as in `json: cannot unmarshal number into …`. */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Go's json.UnmarshalTypeError text. */
export function typeError(what: string, goType: string, field?: GoField): CodecError {
  const target = field ? `Go struct field ${field.struct}.${field.path}` : 'Go value';
  return new CodecError(`json: cannot unmarshal ${what} into ${target} of type ${goType}`);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An object's members keyed as Go's decoder matches struct fields: case-insensitively, the last
 * duplicate winning. Entries keep the JSON order so the first failing field is the one reported.
 */
export function goMembers(value: Record<string, unknown>): Map<string, unknown> {
  const members = new Map<string, unknown>();
  for (const [key, member] of Object.entries(value)) {
    const name = key.toLowerCase();
    members.delete(name);
    members.set(name, member);
  }
  return members;
}

/** Go `bool`: JSON null leaves the zero value. */
export function decodeBool(value: unknown, field?: GoField): boolean {
  if (value === null) return false;
  if (typeof value !== 'boolean') throw typeError(jsonKind(value), 'bool', field);
  return value;
}

/** Go `string` (or a string type such as rpc.ID): JSON null leaves the zero value. */
export function decodeString(value: unknown, goType = 'string', field?: GoField): string {
  if (value === null) return '';
  if (typeof value !== 'string') throw typeError(jsonKind(value), goType, field);
  return value;
}

/** Go's integer kinds from a JSON number: fractions, exponents out of range and overflow are type errors. */
export function decodeGoInteger(value: unknown, goType: 'int' | 'uint64', field?: GoField): number {
  if (value === null) return 0;
  if (typeof value !== 'number') throw typeError(jsonKind(value), goType, field);
  const [min, max] = goType === 'uint64' ? [0, 2 ** 64 - 1] : [-(2 ** 63), 2 ** 63 - 1];
  if (!Number.isInteger(value) || value < min || value > max) throw typeError(`number ${value}`, goType, field);
  return value;
}

/** Go `[]T`: null is a nil slice, anything but an array a type error; elements decoded in order. */
export function decodeSlice<T>(value: unknown, goType: string, element: (item: unknown) => T, field?: GoField): T[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw typeError(jsonKind(value), goType, field);
  return value.map(element);
}
