/**
 * Jazzer target: a CometBFT query (subscribe, tx_search, block_search). Defects: a failure other than a
 * QueryParseError, a parsed query whose printed form parses to another query, over 1 s.
 */
import { parseQuery, QueryParseError } from '../../../src/events/query';
import { failureOf, timed } from '../oracles';

export function fuzz(data: Buffer): void {
  let printed: string | undefined;
  if (failureOf(() => (printed = parseQuery(data.toString('utf8')).toString()), QueryParseError)) return;
  const again = timed(() => parseQuery(printed!).toString());
  if (again !== printed) throw new Error(`printed ${JSON.stringify(printed)}, printed again ${JSON.stringify(again)}`);
}
