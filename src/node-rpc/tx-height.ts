import type { Json } from '../rpc/json';

/** The block an answer puts a transaction in (`height`, an int64 string): `tx`, `broadcast_tx_commit`. */
export function txHeightOf(answer: Json): bigint | undefined {
  const height = answer !== null && typeof answer === 'object' && !Array.isArray(answer) ? answer.height : undefined;
  return typeof height === 'string' && /^[0-9]+$/.test(height) ? BigInt(height) : undefined;
}
