import type { GatewayConfigService } from '../config/gateway-config.service';
import { parseQuery } from '../events/query';
import { QueryTooLargeError } from './node-errors';

/**
 * The `validate` of the methods that take a query (subscribe, tx_search, block_search): `[limits]`
 * max_query_length (bytes; CometBFT's own cap is 512) and max_query_conditions, checked before the
 * call runs, in both backend modes. A query that does not parse is left to the method, which words
 * the parse error as CometBFT does.
 */
export function queryCaps(config: GatewayConfigService): (args: { readonly query: string }) => void {
  return ({ query }) => {
    const { max_query_length: maxLength, max_query_conditions: maxConditions } = config.gateway.limits;
    if (maxLength > 0 && Buffer.byteLength(query) > maxLength) throw new QueryTooLargeError('max_query_length', 'maximum query length exceeded');
    if (maxConditions === 0) return;
    let conditions: number;
    try {
      conditions = parseQuery(query).conditions.length;
    } catch {
      return;
    }
    if (conditions > maxConditions) {
      throw new QueryTooLargeError('max_query_conditions', `maximum query conditions exceeded (${conditions} > ${maxConditions})`);
    }
  };
}
