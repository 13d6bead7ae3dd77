/**
 * Structural scanning of JSON text, enough to find where values start and end without building
 * them: go-ethereum decodes one value and ignores what follows, and echoes ids as their raw text.
 * JSON.parse still validates every slice it is given.
 */

const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

function isWhitespace(c: number): boolean {
  return c === SPACE || c === LF || c === CR || c === TAB;
}

export function skipWhitespace(text: string, i: number): number {
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/** Index just past the string opening at `i`, or -1 when the text ends first. */
function stringEnd(text: string, i: number): number {
  // Quote to quote with indexOf (native); a quote after an odd run of backslashes is escaped.
  for (let q = text.indexOf('"', i + 1); q >= 0; q = text.indexOf('"', q + 1)) {
    let before = q - 1;
    while (text.charCodeAt(before) === BACKSLASH) before--;
    if ((q - 1 - before) % 2 === 0) return q + 1;
  }
  return -1;
}

/** Index just past the value starting at `i` (no leading whitespace), or -1 when the text ends first. */
export function valueEnd(text: string, i: number): number {
  if (i >= text.length) return -1;
  const first = text.charCodeAt(i);
  if (first === QUOTE) return stringEnd(text, i);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let j = i;
    for (; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (isWhitespace(c) || c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE) break;
    }
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) {
      j = stringEnd(text, j) - 1;
      if (j < 0) return -1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

/** The raw texts of the elements of a valid JSON array. */
export function arrayElements(array: string): string[] {
  const elements: string[] = [];
  let i = skipWhitespace(array, 1);
  while (array.charCodeAt(i) !== CLOSE_BRACKET) {
    const end = valueEnd(array, i);
    elements.push(array.slice(i, end));
    i = skipWhitespace(array, end);
    if (array.charCodeAt(i) === COMMA) i = skipWhitespace(array, i + 1);
  }
  return elements;
}

/**
 * Whether the key between `start` and `end` (its quotes included) is `key` (lower case) in Go's
 * case-insensitive match. Escapes only lengthen a key's text, so one of another length is decoded only
 * when it has a backslash; one of the same length is compared as it is.
 */
function keyMatches(object: string, start: number, end: number, key: string): boolean {
  const length = end - start - 2;
  if (length < key.length) return false;
  const raw = object.slice(start + 1, end - 1);
  if (length === key.length) return raw.toLowerCase() === key;
  if (!raw.includes('\\')) return false;
  const name = JSON.parse(object.slice(start, end)) as string;
  return name.length === key.length && name.toLowerCase() === key;
}

/** The raw text of the last member of a valid JSON object whose key matches (Go: case-insensitively). */
export function memberText(object: string, key: string): string | undefined {
  let found: string | undefined;
  let i = skipWhitespace(object, 1);
  while (object.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(object, i);
    const start = skipWhitespace(object, skipWhitespace(object, keyEnd) + 1);
    const end = valueEnd(object, start);
    if (keyMatches(object, i, keyEnd, key)) found = object.slice(start, end);
    i = skipWhitespace(object, end);
    if (object.charCodeAt(i) === COMMA) i = skipWhitespace(object, i + 1);
  }
  return found;
}

/**
 * The deepest nesting of arrays and objects a request may have. Nothing a client sends needs more than
 * a few levels (eth_getLogs topics: 3; typed data and state overrides: under 10), and 900 levels stay
 * a wrong type, as on a real node; but V8's JSON.stringify and any decoder that walks a value recursively
 * overflow the stack a few thousand levels down (a 100,000-deep param was an internal error and a stack
 * in the log). go-ethereum's and CometBFT's decoders stop at 10,000.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * Whether the first JSON value of `text`, from `start`, nests arrays and objects deeper than `max`:
 * one pass over the text up to where that value closes (or the text ends), building nothing.
 */
export function nestedDeeperThan(text: string, start: number, max: number): boolean {
  // Each level opens with a character of its own: a text this short cannot nest deeper.
  if (text.length - start <= max) return false;
  let depth = 0;
  for (let j = start; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) {
      j = stringEnd(text, j) - 1;
      if (j < 0) return false;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth <= 0) return false;
    } else if (depth === 0 && !isWhitespace(c)) return false;
  }
  return false;
}
