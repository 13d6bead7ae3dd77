/**
 * Structural scanning of JSON text, enough to find where values start and end without building
 * them: go-ethereum decodes one value and ignores what follows, and echoes ids as their raw text.
 * JSON.parse still validates every slice it is given.
 */

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

export function skipWhitespace(text: string, i: number): number {
  while (i < text.length && WHITESPACE.has(text[i])) i++;
  return i;
}

function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  return -1;
}

/** Index just past the value starting at `i` (no leading whitespace), or -1 when the text ends first. */
export function valueEnd(text: string, i: number): number {
  const first = text[i];
  if (first === undefined) return -1;
  if (first === '"') return stringEnd(text, i);
  if (first !== '{' && first !== '[') {
    let j = i;
    while (j < text.length && !WHITESPACE.has(text[j]) && !',]}'.includes(text[j])) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      j = stringEnd(text, j) - 1;
      if (j < 0) return -1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
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
  while (array[i] !== ']') {
    const end = valueEnd(array, i);
    elements.push(array.slice(i, end));
    i = skipWhitespace(array, end);
    if (array[i] === ',') i = skipWhitespace(array, i + 1);
  }
  return elements;
}

/** The raw text of the last member of a valid JSON object whose key matches (Go: case-insensitively). */
export function memberText(object: string, key: string): string | undefined {
  let found: string | undefined;
  let i = skipWhitespace(object, 1);
  while (object[i] === '"') {
    const keyEnd = valueEnd(object, i);
    const name = JSON.parse(object.slice(i, keyEnd)) as string;
    const start = skipWhitespace(object, skipWhitespace(object, keyEnd) + 1);
    const end = valueEnd(object, start);
    if (name.toLowerCase() === key) found = object.slice(start, end);
    i = skipWhitespace(object, end);
    if (object[i] === ',') i = skipWhitespace(object, i + 1);
  }
  return found;
}
