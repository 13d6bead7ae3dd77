/**
 * Parameter types of the node RPC, named after the Go types of CometBFT's route handlers; they decide
 * how a value is read from JSON-RPC params and from URI query strings.
 */
export type NodeParamType =
  /** Go int64: a JSON string in JSON-RPC; bare or quoted in URI. Decoded to bigint. */
  | 'int64'
  /** Go int (page, per_page, limit). Decoded to number. */
  | 'int'
  /** Go uint (chunk). Decoded to number. */
  | 'uint'
  | 'bool'
  | 'string'
  /** Go []byte: base64 in JSON-RPC; 0x-hex or a quoted raw string in URI. Decoded to Uint8Array. */
  | 'bytes'
  /** CometBFT HexBytes: hex without 0x in JSON-RPC; 0x-hex or quoted raw string in URI. */
  | 'hexbytes'
  /** Go []string: a JSON array of strings. */
  | 'strings'
  /** An amino-JSON evidence object. */
  | 'evidence';

/** The zero value Go hands a handler for an absent non-pointer parameter. */
export function zeroValue(type: NodeParamType): unknown {
  switch (type) {
    case 'int64':
      return 0n;
    case 'int':
    case 'uint':
      return 0;
    case 'bool':
      return false;
    case 'string':
      return '';
    case 'bytes':
    case 'hexbytes':
      return new Uint8Array(0);
    case 'strings':
      return [];
    case 'evidence':
      return null;
  }
}

/** Go's name of the kind, as used in CometBFT's conversion errors. */
export function goKind(type: NodeParamType): string {
  switch (type) {
    case 'int64':
      return 'int64';
    case 'int':
      return 'int';
    case 'uint':
      return 'uint';
    case 'bool':
      return 'bool';
    case 'string':
      return 'string';
    case 'bytes':
    case 'hexbytes':
      return 'slice';
    case 'strings':
      return 'slice';
    case 'evidence':
      return 'interface';
  }
}
