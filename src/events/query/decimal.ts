/** Exact non-negative decimals (digits × 10^-scale), so that large integers and fractions compare without rounding. */
export interface Decimal {
  readonly digits: bigint;
  readonly scale: number;
}

/** A number argument as the scanner reads it: `\d+(\.\d*)?` ("5." is 5). */
export function parseDecimal(text: string): Decimal | undefined {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text);
  return match ? toDecimal(match[1], match[2] ?? '') : undefined;
}

/**
 * The leading `\d+(\.\d+)?` of an event value, as CometBFT reads numbers ("8atom" is 8);
 * a value with a sign or without a leading digit is not a number.
 */
export function leadingDecimal(value: string): Decimal | undefined {
  const match = /^(\d+)(?:\.(\d+))?/.exec(value);
  return match ? toDecimal(match[1], match[2] ?? '') : undefined;
}

export function compareDecimals(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale);
  const left = a.digits * 10n ** BigInt(scale - a.scale);
  const right = b.digits * 10n ** BigInt(scale - b.scale);
  return left < right ? -1 : left > right ? 1 : 0;
}

function toDecimal(integer: string, fraction: string): Decimal {
  return { digits: BigInt(integer + fraction), scale: fraction.length };
}
