/**
 * Go's time.Parse for the two layouts of the query language: RFC 3339 (TIME) and yyyy-mm-dd (DATE).
 * It accepts what Go 1.22 (CometBFT v0.38's toolchain) accepts: a one-digit hour, a fractional second the
 * layout does not list, any two-digit zone offset; and it fails with Go's error texts, which clients see.
 */

export type ParsedTime =
  | { readonly ok: true; readonly year: number; readonly epochNanos: bigint }
  | { readonly ok: false; readonly error: string };

type Field = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'zone';

interface LayoutElement {
  /** Literal text before the element. */
  readonly prefix: string;
  readonly field: Field;
  /** The element as written in the layout, quoted in errors. */
  readonly text: string;
}

interface Layout {
  readonly text: string;
  readonly elements: readonly LayoutElement[];
}

const DATE_ELEMENTS: readonly LayoutElement[] = [
  { prefix: '', field: 'year', text: '2006' },
  { prefix: '-', field: 'month', text: '01' },
  { prefix: '-', field: 'day', text: '02' },
];

const DATE_LAYOUT: Layout = { text: '2006-01-02', elements: DATE_ELEMENTS };

const RFC3339_LAYOUT: Layout = {
  text: '2006-01-02T15:04:05Z07:00',
  elements: [
    ...DATE_ELEMENTS,
    { prefix: 'T', field: 'hour', text: '15' },
    { prefix: ':', field: 'minute', text: '04' },
    { prefix: ':', field: 'second', text: '05' },
    { prefix: '', field: 'zone', text: 'Z07:00' },
  ],
};

export function parseGoDate(value: string): ParsedTime {
  return parseLayout(DATE_LAYOUT, value);
}

export function parseGoRFC3339(value: string): ParsedTime {
  return parseLayout(RFC3339_LAYOUT, value);
}

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanos: number;
  offsetSeconds: number;
}

/** Reading one element gives the input left, an out-of-range field, or undefined when it cannot parse. */
type Step = { readonly rest: string } | { readonly range: string } | undefined;

function parseLayout(layout: Layout, input: string): ParsedTime {
  const fail = (message: string): ParsedTime => ({ ok: false, error: `parsing time ${quote(input)}${message}` });
  const cannotParse = (valueElem: string, layoutElem: string): ParsedTime =>
    fail(` as ${quote(layout.text)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`);

  const fields: Fields = { year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0, nanos: 0, offsetSeconds: 0 };
  let rest = input;
  for (const element of layout.elements) {
    if (!rest.startsWith(element.prefix)) return cannotParse(rest, element.prefix);
    rest = rest.slice(element.prefix.length);
    const step = readField(element.field, rest, fields);
    if (step === undefined) return cannotParse(rest, element.text);
    if ('range' in step) return fail(`: ${step.range} out of range`);
    rest = step.rest;
  }
  if (rest !== '') return fail(`: extra text: ${quote(rest)}`);
  if (fields.day < 1 || fields.day > daysIn(fields.month, fields.year)) return fail(': day out of range');

  const { year, month, day, hour, minute, second, nanos, offsetSeconds } = fields;
  const seconds =
    BigInt(epochDays(year, month, day)) * 86_400n + BigInt(hour * 3600 + minute * 60 + second - offsetSeconds);
  return { ok: true, year, epochNanos: seconds * 1_000_000_000n + BigInt(nanos) };
}

function readField(field: Field, value: string, fields: Fields): Step {
  if (field === 'year') {
    const digits = value.slice(0, 4);
    if (!/^\d{4}$/.test(digits)) return undefined;
    fields.year = Number(digits);
    return { rest: value.slice(4) };
  }
  if (field === 'zone') return readZone(value, fields);

  const number = leadingNumber(value, field !== 'hour');
  if (number === undefined) return undefined;
  const { value: n, rest } = number;
  switch (field) {
    case 'month':
      if (n < 1 || n > 12) return { range: 'month' };
      fields.month = n;
      return { rest };
    case 'day':
      fields.day = n; // checked against the month once everything is read
      return { rest };
    case 'hour':
      if (n >= 24) return { range: 'hour' };
      fields.hour = n;
      return { rest };
    case 'minute':
      if (n >= 60) return { range: 'minute' };
      fields.minute = n;
      return { rest };
    case 'second':
      if (n >= 60) return { range: 'second' };
      fields.second = n;
      return readFraction(rest, fields);
  }
}

/** A fractional second after the seconds, which Go reads though the layout does not list it. */
function readFraction(value: string, fields: Fields): Step {
  const fraction = /^[.,](\d+)/.exec(value);
  if (fraction === null) return { rest: value };
  fields.nanos = Number(fraction[1].slice(0, 9).padEnd(9, '0')); // Go truncates past nanoseconds
  return { rest: value.slice(fraction[0].length) };
}

function readZone(value: string, fields: Fields): Step {
  if (value.startsWith('Z')) return { rest: value.slice(1) };
  const zone = /^([+-])(\d\d):(\d\d)/.exec(value);
  if (zone === null) return undefined;
  const seconds = Number(zone[2]) * 3600 + Number(zone[3]) * 60;
  fields.offsetSeconds = zone[1] === '-' ? -seconds : seconds;
  return { rest: value.slice(zone[0].length) };
}

/** Go's getnum: one or two leading digits, exactly two when `fixed`. */
function leadingNumber(value: string, fixed: boolean): { value: number; rest: string } | undefined {
  const match = /^\d\d?/.exec(value);
  if (match === null || (fixed && match[0].length < 2)) return undefined;
  return { value: Number(match[0]), rest: value.slice(match[0].length) };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function epochDays(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, keeps years 0-99 as written
  return date.getTime() / 86_400_000;
}

/** Go's time-package quoting: `"` and `\` escaped, control and non-ASCII bytes as \x escapes. */
function quote(text: string): string {
  let out = '"';
  for (const ch of text) {
    if (ch < ' ' || ch > '\x7f') {
      for (const byte of Buffer.from(ch)) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else {
      out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
    }
  }
  return out + '"';
}
