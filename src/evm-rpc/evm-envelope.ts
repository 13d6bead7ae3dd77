import type { Body, Message } from '../rpc/envelope';
import { arrayElements, MAX_JSON_DEPTH, memberText, nestedDeeperThan, skipWhitespace, valueEnd } from '../rpc/json-scan';
import { goMembers, isObject } from './codec/go-json';
import { EvmParseError, InvalidMessageError } from './evm-errors';

export const NULL_ID = 'null';

/** Members of an envelope as sent by every client: nothing for Go's case-insensitive matching to do. */
const PLAIN_KEYS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);

/** The members keyed as Go matches them (see goMembers); a body with only the plain keys is used as it is. */
function envelopeMembers(value: Record<string, unknown>): Record<string, unknown> {
  for (const key in value) if (!PLAIN_KEYS.has(key)) return Object.fromEntries(goMembers(value));
  return value;
}

/** One member of a body, classified as go-ethereum's server does. */
function classify(raw: string, value: unknown): Message {
  if (!isObject(value)) return { kind: 'invalid', idText: NULL_ID, error: new InvalidMessageError() };
  const members = envelopeMembers(value);
  const method = typeof members.method === 'string' ? members.method : '';
  const params = members.params;
  if (!Object.hasOwn(members, 'id')) {
    if (method === '') return { kind: 'invalid', idText: NULL_ID, error: new InvalidMessageError() };
    // A `*_subscription` notification sent to the server is someone's echo: dropped.
    return method.endsWith('_subscription') ? { kind: 'ignored' } : { kind: 'notification', method, params };
  }
  const id = members.id;
  if (typeof id === 'object' && id !== null) return { kind: 'invalid', idText: NULL_ID, error: new InvalidMessageError() };
  // Numbers keep their textual form (1.50, integers beyond 2^53); other ids print the same either way.
  const idText = typeof id === 'number' ? (memberText(raw, 'id') ?? JSON.stringify(id)) : JSON.stringify(id);
  if (method !== '') return { kind: 'call', method, params, id, idText };
  if (!Object.hasOwn(members, 'params') && (Object.hasOwn(members, 'result') || Object.hasOwn(members, 'error'))) return { kind: 'ignored' };
  return { kind: 'invalid', idText, error: new InvalidMessageError() };
}

/** Decodes the first JSON value of a body (what follows it is ignored, as go-ethereum does). */
export function parseEvmBody(text: string): Body {
  const start = skipWhitespace(text, 0);
  if (start === text.length) return { kind: 'empty' };
  // Refused before it is parsed (MAX_JSON_DEPTH): go-ethereum's decoder stops deep values too.
  if (nestedDeeperThan(text, start, MAX_JSON_DEPTH)) return { kind: 'error', error: new EvmParseError() };
  let raw: string;
  let value: unknown;
  try {
    // The usual body is that one value alone: parsed whole, without scanning for its end first.
    value = JSON.parse(text);
    raw = start === 0 ? text : text.slice(start);
  } catch {
    const end = valueEnd(text, start);
    if (end < 0) return { kind: 'error', error: new EvmParseError() };
    raw = text.slice(start, end);
    try {
      value = JSON.parse(raw);
    } catch {
      return { kind: 'error', error: new EvmParseError() };
    }
  }
  if (!Array.isArray(value)) return { kind: 'single', message: classify(raw, value) };
  const elements = arrayElements(raw);
  return { kind: 'batch', messages: value.map((member, i) => classify(elements[i], member)) };
}
