import type { Argument, Condition, OrderedArgument } from './condition';
import { Query } from './query';
import { Scanner, TOKEN_NAMES, type TokenKind } from './scanner';

/** A query that does not parse; the message is CometBFT's parser error text. */
export class QueryParseError extends Error {
  override readonly name = 'QueryParseError';
}

const OPERATORS = ['<=', '>=', '<', '>', '=', 'CONTAINS', 'EXISTS'] as const;
const EQUALITY_ARGUMENTS = ['number', 'time', 'date', 'string'] as const;
const ORDER_ARGUMENTS = ['number', 'time', 'date'] as const;

/** Parses `condition {AND condition}`; the one parser of subscribe, tx_search and block_search. */
export function parseQuery(text: string): Query {
  const scanner = new Scanner(text);
  const conditions = [parseCondition(scanner)];
  for (;;) {
    // Any end of input ends the query, even inside an unterminated string.
    if (scanner.next()?.eof) break;
    // CometBFT formats the wanted token here as its number, 6.
    if (scanner.kind !== 'AND') {
      throw new QueryParseError(`offset ${scanner.pos}: got ${TOKEN_NAMES[scanner.kind]}, want 6`);
    }
    conditions.push(parseCondition(scanner));
  }
  return new Query(conditions);
}

function parseCondition(scanner: Scanner): Condition {
  const tag = expectToken(scanner, ['tag']).text;
  const op = expectToken(scanner, OPERATORS).kind;
  switch (op) {
    case 'EXISTS':
      return { tag, op };
    case 'CONTAINS':
      return { tag, op, arg: { kind: 'string', value: expectToken(scanner, ['string']).text } };
    case '=': {
      const { kind, text } = expectToken(scanner, EQUALITY_ARGUMENTS);
      return { tag, op, arg: { kind, value: text } as Argument };
    }
    default: {
      const { kind, text } = expectToken(scanner, ORDER_ARGUMENTS);
      return { tag, op, arg: { kind, value: text } as OrderedArgument };
    }
  }
}

function expectToken<K extends TokenKind>(scanner: Scanner, kinds: readonly K[]): { kind: K; text: string } {
  const error = scanner.next();
  if (error) throw new QueryParseError(`offset ${scanner.pos}: ${error.message}`);
  const kind = scanner.kind;
  if (!(kinds as readonly TokenKind[]).includes(kind)) {
    throw new QueryParseError(`offset ${scanner.pos}: got ${TOKEN_NAMES[kind]}, wanted ${tokenList(kinds)}`);
  }
  return { kind: kind as K, text: scanner.text };
}

function tokenList(kinds: readonly TokenKind[]): string {
  const names = kinds.map((kind) => TOKEN_NAMES[kind]);
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}
