import { parseGoDate, parseGoRFC3339, type ParsedTime } from './go-time';

export type TokenKind =
  | 'invalid'
  | 'tag'
  | 'string'
  | 'number'
  | 'time'
  | 'date'
  | 'AND'
  | 'CONTAINS'
  | 'EXISTS'
  | '='
  | '<'
  | '<='
  | '>'
  | '>=';

/** Token names as CometBFT's parser errors spell them. */
export const TOKEN_NAMES: Readonly<Record<TokenKind, string>> = {
  invalid: 'invalid token',
  tag: 'tag',
  string: 'string',
  number: 'number',
  time: 'timestamp',
  date: 'datestamp',
  AND: 'AND operator',
  CONTAINS: 'CONTAINS operator',
  EXISTS: 'EXISTS operator',
  '=': '= operator',
  '<': '< operator',
  '<=': '<= operator',
  '>': '> operator',
  '>=': '>= operator',
};

export class ScanError {
  constructor(
    readonly message: string,
    readonly eof = false,
  ) {}
}

const EOF = new ScanError('EOF', true);

const WHITE_SPACE = /^\p{White_Space}$/u;
const FIRST_TAG_RUNE = /^[\p{L}\p{Nd}_]$/u;
const TAG_RUNE = /^[\p{L}\p{Nd}_.-]$/u;
const ASCII_DIGIT = /^[0-9]$/;
const TIME_RUNE = /^[0-9TZ:+-]$/;
const DATE_RUNE = /^[0-9-]$/;

/**
 * The lexer of the query language, one token per next(). Offsets are UTF-8 byte offsets,
 * as in CometBFT's error texts.
 */
export class Scanner {
  kind: TokenKind = 'invalid';
  text = '';
  /** Byte offset where the current token starts. */
  pos = 0;

  private index = 0;
  private end = 0;
  private lastUnits = 0;
  private lastBytes = 0;

  constructor(private readonly input: string) {}

  /** Reads the next token; on failure `kind` stays 'invalid'. */
  next(): ScanError | undefined {
    this.kind = 'invalid';
    this.text = '';
    this.pos = this.end;
    for (;;) {
      const ch = this.read();
      if (ch === undefined) return EOF;
      if (WHITE_SPACE.test(ch)) {
        this.pos = this.end;
      } else if (ASCII_DIGIT.test(ch)) {
        return this.scanNumber(ch);
      } else if (FIRST_TAG_RUNE.test(ch)) {
        return this.scanTagLike(ch);
      } else if (ch === "'") {
        return this.scanString();
      } else if (ch === '<' || ch === '>' || ch === '=') {
        return this.scanCompare(ch);
      } else {
        return new ScanError(`invalid input ${ch} at offset ${this.end}`);
      }
    }
  }

  private scanNumber(first: string): undefined {
    this.text = first;
    this.takeWhile(ASCII_DIGIT);
    const ch = this.read();
    if (ch === '.') {
      this.text += ch;
      this.takeWhile(ASCII_DIGIT);
    } else {
      this.unread();
    }
    this.kind = 'number';
    return undefined;
  }

  private scanTagLike(first: string): ScanError | undefined {
    this.text = first;
    let spaceFollows = false;
    for (let ch = this.read(); ch !== undefined; ch = this.read()) {
      if (!TAG_RUNE.test(ch)) {
        spaceFollows = ch === ' ';
        break;
      }
      this.text += ch;
    }
    switch (this.text) {
      // "TIME x" and "DATE x" are stamps, and the space is consumed; otherwise they are tags.
      case 'TIME':
        if (spaceFollows) return this.scanStamp('time');
        this.kind = 'tag';
        break;
      case 'DATE':
        if (spaceFollows) return this.scanStamp('date');
        this.kind = 'tag';
        break;
      case 'AND':
      case 'CONTAINS':
      case 'EXISTS':
        this.kind = this.text;
        break;
      default:
        this.kind = 'tag';
    }
    this.unread();
    return undefined;
  }

  private scanStamp(kind: 'time' | 'date'): ScanError | undefined {
    this.text = '';
    this.takeWhile(kind === 'time' ? TIME_RUNE : DATE_RUNE);
    const parsed: ParsedTime = kind === 'time' ? parseGoRFC3339(this.text) : parseGoDate(this.text);
    const [label, name] = kind === 'time' ? ['TIME', 'timestamp'] : ['DATE', 'datestamp'];
    if (!parsed.ok) return new ScanError(`invalid ${label} value: ${parsed.error}`);
    if (parsed.year < 1900 || parsed.year > 2999) return new ScanError(`${name} year ${parsed.year} out of range`);
    this.kind = kind;
    return undefined;
  }

  /** A quoted string has no escapes; an unterminated one ends in EOF. */
  private scanString(): ScanError | undefined {
    for (let ch = this.read(); ch !== undefined; ch = this.read()) {
      if (ch === "'") {
        this.kind = 'string';
        return undefined;
      }
      this.text += ch;
    }
    return EOF;
  }

  private scanCompare(first: '<' | '>' | '='): undefined {
    this.text = first;
    this.kind = first;
    if (first === '=') return undefined;
    const ch = this.read();
    if (ch === '=') {
      this.text += ch;
      this.kind = first === '<' ? '<=' : '>=';
    } else {
      this.unread();
    }
    return undefined;
  }

  private takeWhile(accepts: RegExp): void {
    for (let ch = this.read(); ch !== undefined; ch = this.read()) {
      if (!accepts.test(ch)) {
        this.unread();
        return;
      }
      this.text += ch;
    }
  }

  /** The next code point, or undefined at the end (after which unread() does nothing). */
  private read(): string | undefined {
    const code = this.input.codePointAt(this.index);
    if (code === undefined) {
      this.lastUnits = this.lastBytes = 0;
      return undefined;
    }
    this.lastUnits = code > 0xffff ? 2 : 1;
    this.lastBytes = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    this.index += this.lastUnits;
    this.end += this.lastBytes;
    // A lone surrogate is what Go reads as the replacement character.
    return code >= 0xd800 && code <= 0xdfff ? '\ufffd' : String.fromCodePoint(code);
  }

  private unread(): void {
    this.index -= this.lastUnits;
    this.end -= this.lastBytes;
    this.lastUnits = this.lastBytes = 0;
  }
}
