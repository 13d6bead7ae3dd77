/**
 * The `hash` parameter of `tx_by_evm_hash`: an EVM tx hash as EVM tools write it, 0x and 64 hex digits
 * (either case), in every node RPC form: a JSON string in JSON-RPC (named or positional), bare or quoted
 * in a URI (`GET /tx_by_evm_hash?hash=0x…`). The node RPC's own `string` codec reads the JSON and quoted
 * forms; a bare 0x… in a URI, which it would hex-decode to text, is taken as written.
 */
import { CodecError, nodeCodecs, type Codec } from 'rpc-gateway/plugin-api';

const EVM_HASH = /^0x[0-9a-fA-F]{64}$/;

function evmHash(text: string): string {
  if (!EVM_HASH.test(text)) throw new CodecError(`invalid EVM transaction hash ${JSON.stringify(text)}: expected 0x and 64 hex digits`);
  return text.toLowerCase();
}

export const evmHashParam: Codec<string> = {
  decode: (value) => evmHash(nodeCodecs.string.decode(value)),
  decodeText: (text) => {
    if (text.startsWith('0x') || text.startsWith('0X')) return evmHash(text);
    const quoted = nodeCodecs.string.decodeText;
    return evmHash(quoted ? quoted(text) : text);
  },
  // Left out, it is empty, and the method answers as the node's `tx` does for an empty hash.
  zero: () => '',
  encode: (value) => value,
};
