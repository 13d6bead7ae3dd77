import { goMembers, isObject } from '../codec/go-json';
import { arrayElements, memberText, skipWhitespace, valueEnd } from './json-scan';

/** One member of a request body, classified as go-ethereum's server does. */
export type IncomingMessage =
  | { readonly kind: 'call'; readonly method: string; readonly params: unknown; readonly id: unknown; readonly rawId: string }
  | { readonly kind: 'notification'; readonly method: string; readonly params: unknown }
  /** Answered `invalid request` with `rawId` (`null` when the id itself was unusable). */
  | { readonly kind: 'invalid'; readonly rawId: string }
  /** Responses and `*_subscription` notifications sent to the server: dropped silently. */
  | { readonly kind: 'ignored' };

export type ParsedBody =
  | { readonly kind: 'empty' }
  | { readonly kind: 'parse-error' }
  | { readonly kind: 'single'; readonly message: IncomingMessage }
  | { readonly kind: 'batch'; readonly messages: IncomingMessage[] };

export const NULL_ID = 'null';

function classify(raw: string, value: unknown): IncomingMessage {
  if (!isObject(value)) return { kind: 'invalid', rawId: NULL_ID };
  const members = goMembers(value);
  const method = typeof members.get('method') === 'string' ? (members.get('method') as string) : '';
  const params = members.get('params');
  if (!members.has('id')) {
    if (method === '') return { kind: 'invalid', rawId: NULL_ID };
    return method.endsWith('_subscription') ? { kind: 'ignored' } : { kind: 'notification', method, params };
  }
  const id = members.get('id');
  if (typeof id === 'object' && id !== null) return { kind: 'invalid', rawId: NULL_ID };
  // Numbers keep their textual form (1.50, integers beyond 2^53); other ids print the same either way.
  const rawId = typeof id === 'number' ? (memberText(raw, 'id') ?? JSON.stringify(id)) : JSON.stringify(id);
  if (method !== '') return { kind: 'call', method, params, id, rawId };
  if (!members.has('params') && (members.has('result') || members.has('error'))) return { kind: 'ignored' };
  return { kind: 'invalid', rawId };
}

/** Decodes the first JSON value of a body (what follows it is ignored, as go-ethereum does). */
export function parseBody(text: string): ParsedBody {
  const start = skipWhitespace(text, 0);
  if (start === text.length) return { kind: 'empty' };
  const end = valueEnd(text, start);
  if (end < 0) return { kind: 'parse-error' };
  const raw = text.slice(start, end);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { kind: 'parse-error' };
  }
  if (!Array.isArray(value)) return { kind: 'single', message: classify(raw, value) };
  const elements = arrayElements(raw);
  return { kind: 'batch', messages: value.map((member, i) => classify(elements[i], member)) };
}
