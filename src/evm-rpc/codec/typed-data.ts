import { decodeString, goMembers, isObject, jsonKind, typeError } from './go-json';

export interface TypedDataField {
  readonly name: string;
  readonly type: string;
}

/** EIP-712 typed data as eth_signTypedData takes it (go-ethereum's apitypes.TypedData). */
export interface TypedData {
  readonly types: Record<string, TypedDataField[]>;
  readonly primaryType: string;
  readonly domain: Record<string, unknown>;
  readonly message: Record<string, unknown>;
}

function objectField(value: unknown, goType: string, path: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw typeError(jsonKind(value), goType, { struct: 'TypedData', path });
  return value;
}

function decodeTypes(value: unknown): Record<string, TypedDataField[]> {
  const types: Record<string, TypedDataField[]> = {};
  for (const [name, fields] of Object.entries(objectField(value, 'apitypes.Types', 'types'))) {
    if (!Array.isArray(fields)) throw typeError(jsonKind(fields), '[]apitypes.Type', { struct: 'TypedData', path: 'types' });
    types[name] = fields.map((field) => {
      if (!isObject(field)) throw typeError(jsonKind(field), 'apitypes.Type', { struct: 'TypedData', path: 'types' });
      const members = goMembers(field);
      return {
        name: decodeString(members.get('name') ?? null, 'string', { struct: 'Type', path: 'types.name' }),
        type: decodeString(members.get('type') ?? null, 'string', { struct: 'Type', path: 'types.type' }),
      };
    });
  }
  return types;
}

export function decodeTypedData(value: unknown): TypedData {
  if (value === null) value = {};
  if (!isObject(value)) throw typeError(jsonKind(value), 'apitypes.TypedData');
  const members = goMembers(value);
  return {
    types: decodeTypes(members.get('types')),
    primaryType: decodeString(members.get('primarytype') ?? null, 'string', { struct: 'TypedData', path: 'primaryType' }),
    domain: objectField(members.get('domain'), 'apitypes.TypedDataDomain', 'domain'),
    message: objectField(members.get('message'), 'apitypes.TypedDataMessage', 'message'),
  };
}
