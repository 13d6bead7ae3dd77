/**
 * A value that could not be decoded, worded as go-ethereum's JSON decoding reports it. The params
 * decoding adds the position (`invalid argument N: …`) and makes it a -32602.
 */
export { CodecError } from '../../rpc/codec';
