import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { ConfigError } from './config-error';
import type { ConfigFileName } from './config-table-spec';
import { renderConfigFile } from './config-template';

/** How errors name a file: relative to the home, as an operator sees it there. */
export const fileLabel = (file: ConfigFileName): string => `config/${file}`;

/** A TOML table (smol-toml builds them without a prototype), as opposed to an array, date or scalar. */
export function isTomlTable(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype;
}

/**
 * Parses `$HOME/config/<file>`, first writing it with the defaults when it is missing (as a node's
 * `init` does), so an operator finds every key documented in place.
 */
export function readConfigFile(home: string, file: ConfigFileName): Record<string, unknown> {
  const path = join(home, 'config', file);
  const label = fileLabel(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(`${label}: cannot read: ${(error as Error).message}`);
    }
    text = renderConfigFile(file);
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    } catch (writeError) {
      throw new ConfigError(`${label}: cannot write the defaults: ${(writeError as Error).message}`);
    }
  }
  try {
    // Big integers elsewhere in a real node's file must not stop the parse.
    return parseToml(text, { integersAsBigInt: 'asNeeded' });
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
    throw new ConfigError(`${label}: invalid TOML at line ${error.line}, column ${error.column}: ${reason}`);
  }
}
