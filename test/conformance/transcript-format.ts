/**
 * The transcript format read by transcripts.test.ts (whose header comment is the reference): parsing
 * a file into steps, expanding `{{…}}` in request texts, and matching `<~` patterns. No I/O here.
 */

import type { BackendKind } from '../../src/config/config.types';

export type Header = readonly [name: string, value: string];

/** The backends a transcript runs over, unless its `# modes:` line names fewer. */
export const MODES: readonly BackendKind[] = ['embedded', 'upstream'];

export type Request =
  /** An HTTP request to the interface's HTTP listener, or with `@ws` to its WebSocket listener. */
  | { kind: 'http'; method: string; listener: 'http' | 'ws'; path: string; headers: Header[]; body: string }
  /** A message on the current WebSocket connection (opened first if there is none). */
  | { kind: 'ws'; message: string }
  /** A new WebSocket connection to `path`, replacing the current one. */
  | { kind: 'open'; path: string | undefined; headers: Header[] };

export type Reply =
  | { line: number; kind: 'text'; exact: boolean; text: string }
  | { line: number; kind: 'http'; exact: boolean; status: number; body: string; headers: Header[] }
  | { line: number; kind: 'close'; code: number };

export interface Step {
  readonly line: number;
  readonly request: Request;
  readonly replies: Reply[];
}

export interface Transcript {
  readonly flags: Record<string, string>;
  /** The backends to run it over: every one of MODES, or those of its `# modes:` line. */
  readonly modes: readonly BackendKind[];
  readonly steps: Step[];
}

const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);

/** A text ending in the two characters `\n` ends in a newline byte. */
function unescapeEnd(text: string): string {
  return text.endsWith('\\n') ? text.slice(0, -2) + '\n' : text;
}

export function parseTranscript(source: string): Transcript {
  const flags: Record<string, string> = {};
  let modes: BackendKind[] | undefined;
  const steps: Step[] = [];
  let headers: Header[] = [];
  let current: Step | undefined;
  source.split('\n').forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const n = index + 1;
    const fail = (why: string): never => {
      throw new Error(`line ${n}: ${why}: ${line}`);
    };
    const flagLine = /^# flags:(.*)$/.exec(line);
    if (flagLine) {
      for (const kv of flagLine[1].trim().split(/\s+/).filter(Boolean)) {
        const eq = kv.indexOf('=');
        if (eq <= 0) fail('expected key=value');
        flags[kv.slice(0, eq)] = kv.slice(eq + 1);
      }
      return;
    }
    const modesLine = /^# modes:(.*)$/.exec(line);
    if (modesLine) {
      if (modes) fail('a second modes line');
      const names = modesLine[1].trim().split(/\s+/).filter(Boolean);
      if (!names.length) fail('expected at least one mode');
      modes = names.map((name) => MODES.find((m) => m === name) ?? fail(`unknown mode ${name} (known: ${MODES.join(', ')})`));
      return;
    }
    if (line === '' || line.startsWith('#')) return;
    if (line.startsWith('-->')) {
      const rest = line.slice(3);
      if (rest !== '' && !rest.startsWith(' ')) fail('expected a space after -->');
      const text = rest.slice(1);
      const header = /^([A-Za-z][A-Za-z0-9-]*):(?: (.*))?$/.exec(text);
      if (header) {
        headers.push([header[1], header[2] ?? '']);
        return;
      }
      const [, kind, listener, arg] = /^([A-Z]+)(@ws)?(?: (.*))?$/.exec(text) ?? fail('bad request line');
      let request: Request;
      if (kind === 'WS') {
        if (listener || headers.length) fail('a WebSocket message takes no headers');
        request = { kind: 'ws', message: unescapeEnd(arg ?? '') };
      } else if (kind === 'OPEN') {
        if (listener) fail('OPEN always goes to the WebSocket listener');
        request = { kind: 'open', path: arg || undefined, headers };
      } else if (HTTP_METHODS.has(kind)) {
        let path = '/';
        let body = arg ?? '';
        if (body.startsWith('/')) {
          const space = body.indexOf(' ');
          path = space < 0 ? body : body.slice(0, space);
          body = space < 0 ? '' : body.slice(space + 1);
        }
        request = { kind: 'http', method: kind, listener: listener ? 'ws' : 'http', path, headers, body: unescapeEnd(body) };
      } else {
        return fail(`unknown request kind ${kind}`);
      }
      headers = [];
      current = { line: n, request, replies: [] };
      steps.push(current);
      return;
    }
    const reply = /^(<--|<~)(?: (.*))?$/.exec(line);
    if (!reply) return fail('expected -->, <--, <~, # or a blank line');
    if (!current) return fail('a reply before any request');
    if (headers.length) fail('headers must be followed by a request');
    const exact = reply[1] === '<--';
    const text = reply[2] ?? '';
    const replies = current.replies;
    const request = current.request;
    if (request.kind === 'ws') {
      const close = /^close (\d{4})$/.exec(text);
      replies.push(close ? { line: n, kind: 'close', code: Number(close[1]) } : { line: n, kind: 'text', exact, text: unescapeEnd(text) });
      return;
    }
    const status = /^(\d{3})(?: (.*))?$/.exec(text);
    if (status) {
      if (replies.length) fail('one status line per HTTP request');
      replies.push({ line: n, kind: 'http', exact, status: Number(status[1]), body: unescapeEnd(status[2] ?? ''), headers: [] });
      return;
    }
    const header = /^([A-Za-z][A-Za-z0-9-]*):(?: (.*))?$/.exec(text);
    const first = replies[0];
    if (!header || !exact || first?.kind !== 'http') return fail('expected a status line, then `<-- Name: value` header lines');
    first.headers.push([header[1], header[2] ?? '']);
  });
  if (headers.length) throw new Error('headers at the end of the file, with no request');
  for (const step of steps) {
    if (step.request.kind !== 'ws' && step.replies.length !== 1) throw new Error(`line ${step.line}: expected one reply line`);
  }
  return { flags, modes: modes ?? MODES, steps };
}

/** Named values captured by `{{name}}` in patterns, as their raw text on the wire. */
export type Captures = Map<string, string>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The bytes to send for a request text: `{{name}}` is a captured value (inside a JSON string, a captured
 * string stands for its characters), `{{TEXT*N}}` is TEXT repeated N times, `{{0xHH…}}` raw bytes;
 * everything else is sent as UTF-8.
 */
export function expandRequest(text: string, captures: Captures): Buffer {
  const parts: Buffer[] = [];
  for (const piece of split(text)) {
    if ('literal' in piece) {
      parts.push(Buffer.from(piece.literal, 'utf8'));
      continue;
    }
    const inner = piece.name;
    const repeat = /^(.+)\*(\d+)$/s.exec(inner);
    if (NAME.test(inner)) {
      const value = captures.get(inner);
      if (value === undefined) throw new Error(`{{${inner}}} was not captured by an earlier reply`);
      parts.push(Buffer.from(piece.inString ? stringContent(value) : value, 'utf8'));
    } else if (/^0x(?:[0-9a-fA-F]{2})+$/.test(inner)) {
      parts.push(Buffer.from(inner.slice(2), 'hex'));
    } else if (repeat) {
      parts.push(Buffer.from(repeat[1].repeat(Number(repeat[2])), 'utf8'));
    } else {
      throw new Error(`cannot expand {{${inner}}}`);
    }
  }
  return Buffer.concat(parts);
}

/** A captured JSON string stands for its characters inside another string. */
function stringContent(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

type Piece = { literal: string } | { name: string; inString: boolean };

/** Splits a text into literal runs and `{{…}}`, noting which `{{…}}` sit inside a JSON string. */
function split(text: string): Piece[] {
  const pieces: Piece[] = [];
  let inString = false;
  let literal = '';
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith('{{', i)) {
      const end = text.indexOf('}}', i + 2);
      if (end < 0) throw new Error(`unclosed {{ at column ${i + 1} of ${text}`);
      if (literal) pieces.push({ literal });
      literal = '';
      pieces.push({ name: text.slice(i + 2, end), inString });
      i = end + 1;
      continue;
    }
    const c = text[i];
    literal += c;
    if (c === '\\' && inString) {
      literal += text[++i] ?? '';
    } else if (c === '"') {
      inString = !inString;
    }
  }
  if (literal) pieces.push({ literal });
  return pieces;
}

/** A pattern's pieces; a placeholder is `any`, `...` or a name. */
function compile(pattern: string): Piece[] {
  const pieces = split(pattern);
  for (const piece of pieces) {
    if ('name' in piece && piece.name !== '...' && !NAME.test(piece.name)) throw new Error(`bad placeholder {{${piece.name}}} in ${pattern}`);
  }
  return pieces;
}

/** The end of the JSON value that starts at `from`, or -1 when none starts there. */
export function scanJsonValue(text: string, from: number): number {
  const c = text[from];
  if (c === '"') {
    for (let i = from + 1; i < text.length; i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '"') return i + 1;
    }
    return -1;
  }
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let i = from; i < text.length; i++) {
      const d = text[i];
      if (d === '"') {
        i = scanJsonValue(text, i) - 1;
        if (i < 0) return -1;
      } else if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  const scalar = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(from, from + 400));
  return scalar ? from + scalar[0].length : -1;
}

/** The end of the string content that starts at `from` (before the closing quote), or -1. */
function stringContentEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/**
 * Matches `text` against a `<~` pattern: literal text must be equal byte for byte; `{{any}}` matches one
 * JSON value, or inside a JSON string any run of its characters; `{{...}}` matches any text at all;
 * `{{name}}` matches as `{{any}}` does and captures what it matched, or, when `name` is already
 * captured, must match exactly that (inside a string: that string's characters). Returns the captures
 * made (merged into `captures` only on success), or undefined when the text does not match.
 */
export function matchPattern(pattern: string, text: string, captures: Captures): Captures | undefined {
  const pieces = compile(pattern);
  const made: Captures = new Map();
  const bound = (name: string) => (name === 'any' || name === '...' ? undefined : (made.get(name) ?? captures.get(name)));
  const go = (p: number, at: number): boolean => {
    if (p === pieces.length) return at === text.length;
    const piece = pieces[p];
    if ('literal' in piece) return text.startsWith(piece.literal, at) && go(p + 1, at + piece.literal.length);
    const known = bound(piece.name);
    if (known !== undefined) {
      const value = piece.inString ? stringContent(known) : known;
      return text.startsWith(value, at) && go(p + 1, at + value.length);
    }
    const take = (end: number): boolean => {
      const capturing = piece.name !== 'any' && piece.name !== '...';
      if (capturing) made.set(piece.name, text.slice(at, end));
      if (go(p + 1, end)) return true;
      if (capturing) made.delete(piece.name);
      return false;
    };
    if (piece.name === '...') {
      for (let end = at; end <= text.length; end++) if (take(end)) return true;
      return false;
    }
    if (!piece.inString) {
      const end = scanJsonValue(text, at);
      return end >= 0 && take(end);
    }
    const limit = stringContentEnd(text, at);
    for (let end = at; end >= 0 && end <= limit; end += text[end] === '\\' ? 2 : 1) {
      if (take(end)) return true;
    }
    return false;
  };
  if (!go(0, 0)) return undefined;
  for (const [k, v] of made) captures.set(k, v);
  return made;
}
