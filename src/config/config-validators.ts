/**
 * The readings of config keys: each validator states, once, how a key's value is read (its kind), its
 * TypeScript type, and what it expects: every class-validator check it applies reports the same
 * `expected …` text, which becomes the tail of the one-line ConfigError.
 */
import { isIP } from 'node:net';
import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateBy, type ValidationArguments, type ValidationOptions } from 'class-validator';
import type { Reading, ValueKind } from './config-table-spec';
import { UINT64_MAX } from '../rpc/int-bounds';

type Message = ValidationOptions['message'];

type Check = (options: ValidationOptions) => PropertyDecorator;

/** A check by a function of the value (and, through `args.object`, of the table it is read into). */
const satisfying =
  <V>(name: string, validate: (value: V, args?: ValidationArguments) => boolean): Check =>
  (o) =>
    ValidateBy({ name, validator: { validate } }, o);

const expected = (what: string): string => `expected ${what}`;

/** A reading whose checks all report `message`: `expected <what>` unless the text depends on the values. */
function readingWith<T>(kind: ValueKind, what: string, message: Message, ...checks: Check[]): Reading<T> {
  const check: PropertyDecorator = (target, property) => {
    for (const apply of checks) apply({ message })(target, property);
  };
  return { kind, what, check };
}

const reading = <T>(kind: ValueKind, what: string, ...checks: Check[]): Reading<T> => readingWith(kind, what, expected(what), ...checks);

/** An integer from `min` to 2^53−1, the largest a JavaScript number holds exactly. */
export function IsIntAtLeast(min: number): Reading<number> {
  return reading(
    'integer',
    `an integer from ${min} to ${Number.MAX_SAFE_INTEGER}`,
    (o) => IsInt(o),
    (o) => Min(min, o),
    (o) => Max(Number.MAX_SAFE_INTEGER, o),
  );
}

export function IsIntBetween(min: number, max: number): Reading<number> {
  return reading(
    'integer',
    `an integer from ${min} to ${max}`,
    (o) => IsInt(o),
    (o) => Min(min, o),
    (o) => Max(max, o),
  );
}

/** A node's uint64 (gas-cap): the loader reads values past 2^53−1 as 2^53−1, no practical difference for a cap. */
export function IsUint64(): Reading<number> {
  return reading(
    'uint64',
    `an integer from 0 to ${UINT64_MAX}`,
    (o) => IsInt(o),
    (o) => Min(0, o),
    (o) => Max(Number.MAX_SAFE_INTEGER, o),
  );
}

export function IsNumberAtLeast(min: number): Reading<number> {
  return reading(
    'number',
    `a number >= ${min}`,
    (o) => IsNumber({ allowNaN: false, allowInfinity: false }, o),
    (o) => Min(min, o),
  );
}

export function IsNumberBetween(min: number, max: number): Reading<number> {
  return reading(
    'number',
    `a number from ${min} to ${max}`,
    (o) => IsNumber({ allowNaN: false, allowInfinity: false }, o),
    (o) => Min(min, o),
    (o) => Max(max, o),
  );
}

/** A duration already resolved to milliseconds by the loader. */
export function IsDurationAtLeast(minMs: 0 | 1): Reading<number> {
  const what = minMs === 0 ? 'a duration >= 0' : 'a duration > 0';
  return reading(
    'duration',
    `${what}, such as "10s", "500ms" or "1m30s"`,
    (o) => IsInt(o),
    (o) => Min(minMs, o),
  );
}

export function IsFlag(): Reading<boolean> {
  return reading('boolean', 'true or false', (o) => IsBoolean(o));
}

export function IsNonEmptyText(maxLength = Number.MAX_SAFE_INTEGER): Reading<string> {
  const what = maxLength < Number.MAX_SAFE_INTEGER ? `a non-empty string of at most ${maxLength} characters` : 'a non-empty string';
  return reading(
    'string',
    what,
    (o) => IsString(o),
    (o) => MinLength(1, o),
    (o) => MaxLength(maxLength, o),
  );
}

export function IsTextList(): Reading<string[]> {
  return reading(
    'list',
    'an array of strings',
    (o) => IsArray(o),
    (o) => IsString({ ...o, each: true }),
  );
}

/** One of `values`; its type is their union (`IsOneOf(['ip', 'key'] as const)`: `'ip' | 'key'`). */
export function IsOneOf<const V extends readonly string[]>(values: V): Reading<V[number]> {
  return reading('string', `one of ${values.join(', ')}`, (o) => IsIn([...values], o));
}

export function IsMatching(pattern: RegExp, what: string): Reading<string> {
  return reading(
    'string',
    what,
    (o) => IsString(o),
    (o) => Matches(pattern, o),
  );
}

/** Method names or globs (`*` = any characters), at least one; a file may give one as a string. */
export function IsMethodGlobList(): Reading<string[]> {
  const glob = /^[A-Za-z0-9_.*-]+$/;
  return reading(
    'comma-list',
    'a method name or glob, or an array of them, such as ["eth_getLogs", "debug_*"]',
    (o) => IsArray(o),
    satisfying('isMethodGlobList', (value: unknown[]) => value.length > 0 && value.every((g) => typeof g === 'string' && glob.test(g))),
  );
}

/** A duration of whole seconds, at least one (a rate-limit window). */
export function IsWholeSeconds(): Reading<number> {
  return reading(
    'duration',
    'a duration of whole seconds, such as "1s" or "1m"',
    (o) => IsInt(o),
    (o) => Min(1000, o),
    satisfying('isWholeSeconds', (value: number) => value % 1000 === 0),
  );
}

const HOST = String.raw`(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]*)`;
const PORT = String.raw`(?:6553[0-5]|655[0-2]\d|65[0-4]\d{2}|6[0-4]\d{3}|[1-5]\d{4}|[1-9]\d{0,3}|0)`;
const HOST_PORT = new RegExp(`^${HOST}:${PORT}$`);
const LISTEN_ADDRESS = new RegExp(`^(?:tcp://${HOST}:${PORT}|unix://.+)$`);

/** `host:port`; the host may be empty (all interfaces), a name, an IPv4 or a bracketed IPv6 address. */
export function IsHostPort(): Reading<string> {
  return IsMatching(HOST_PORT, 'an address host:port');
}

/** CometBFT's `laddr`: comma-separated `tcp://host:port` or `unix:///path` entries. */
export function IsListenAddressList(): Reading<string> {
  return reading(
    'string',
    'comma-separated tcp://host:port or unix:///path addresses',
    (o) => IsString(o),
    satisfying('isListenAddressList', (value: string) => value.split(',').every((entry) => LISTEN_ADDRESS.test(entry.trim()))),
  );
}

/** "" (no TLS) or the path of a `.pem` file, as Evmos checks its `[tls]` paths. */
export function IsPemPath(): Reading<string> {
  return IsMatching(/^(?:|.+\.pem)$/, '"" or the path of a .pem file');
}

/** An empty string (feature off) or a URL with one of the given schemes. */
export function IsUrlOrEmpty(schemes: readonly string[]): Reading<string> {
  const pattern = new RegExp(`^(?:(?:${schemes.join('|')})://\\S+)?$`);
  return IsMatching(pattern, `"" or a ${schemes.map((s) => `${s}://`).join(' or ')} URL`);
}

/** An integer no smaller than another integer key of the same table. */
export function IsIntAtLeastKey(otherKey: string): Reading<number> {
  const message = (args: ValidationArguments): string =>
    expected(`an integer >= ${otherKey} (${String((args.object as Record<string, unknown>)[otherKey])})`);
  return readingWith(
    'integer',
    `an integer >= ${otherKey}`,
    message,
    (o) => IsInt(o),
    satisfying('isIntAtLeastKey', (value: number, args) => {
      const other = (args?.object as Record<string, unknown>)[otherKey];
      return typeof other !== 'number' || value >= other;
    }),
  );
}

/**
 * EVM namespaces: distinct names among `allowed(object)`, and at least one when `enable` is true (as
 * Evmos refuses to start with the server on and no namespace).
 */
export function IsNamespaceList(allowed: (object: object) => readonly string[]): Reading<string[]> {
  const message = (args: ValidationArguments): string => {
    const enabled = (args.object as { enable?: unknown }).enable === true;
    if (enabled && Array.isArray(args.value) && args.value.length === 0) {
      return expected('at least one namespace while enable = true');
    }
    return expected(`distinct namespaces among ${allowed(args.object).join(', ')}`);
  };
  return readingWith(
    'comma-list',
    `distinct namespaces among ${allowed({}).join(', ')} or a plugin's; at least one while enable = true`,
    message,
    (o) => IsArray(o),
    satisfying('isNamespaceList', (value: unknown[], args) => {
      const object = args?.object ?? {};
      const known = allowed(object);
      const enabled = (object as { enable?: unknown }).enable === true;
      return value.every((name) => typeof name === 'string' && known.includes(name)) && new Set(value).size === value.length && (!enabled || value.length > 0);
    }),
  );
}

/** IP addresses or CIDR ranges (`10.0.0.0/8`, `::1`, `fd00::/8`). */
export function IsCidrList(): Reading<string[]> {
  return reading(
    'list',
    'an array of IP addresses or CIDR ranges, such as "10.0.0.0/8" or "::1"',
    (o) => IsArray(o),
    satisfying('isCidrList', (value: unknown[]) => value.every((entry) => typeof entry === 'string' && isCidr(entry))),
  );
}

/** An IP address, or an address and a prefix length within its family's bits. */
export function isCidr(text: string): boolean {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return false;
  if (slash < 0) return true;
  const bits = text.slice(slash + 1);
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}
