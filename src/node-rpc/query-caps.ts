import { parseQuery } from '../events/query';
import type { MethodEnv } from '../rpc/method';
import { QueryTooLargeError } from './node-errors';

/**
 * The prepare hook of the methods that take a query (subscribe, tx_search, block_search): `[limits]`
 * max_query_length (bytes; CometBFT's own cap is 512) and max_query_conditions, checked before the
 * call runs, in both backend modes. A query that does not parse is left to the method, which words
 * the parse error as CometBFT does.
 */
export function queryCaps<A extends { readonly query: string }>(args: A, { config }: MethodEnv): A {
  const { max_query_length: maxLength, max_query_conditions: maxConditions } = config.gateway.limits;
  if (maxLength > 0 && Buffer.byteLength(args.query) > maxLength) throw new QueryTooLargeError('max_query_length', 'maximum query length exceeded');
  if (maxConditions === 0) return args;
  let conditions: number;
  try {
    conditions = parseQuery(args.query).conditions.length;
  } catch {
    return args;
  }
  if (conditions > maxConditions) {
    throw new QueryTooLargeError('max_query_conditions', `maximum query conditions exceeded (${conditions} > ${maxConditions})`);
  }
  return args;
}
