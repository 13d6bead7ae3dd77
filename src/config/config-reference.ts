/**
 * The key reference of docs/configuration.md, written from the declarations: one markdown table per
 * table and array of tables (key, type and range, default, environment variable, flag, meaning) and the
 * list of named flags, each between `<!-- config-reference: <name> -->` and `<!-- /config-reference -->`.
 * The prose around the markers is the docs' own.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { KeySpec, KeySpecs } from './config-table-spec';
import { ENTRY_NAMES, entrySpec, type EntryName } from './config-tables-entries';
import { TABLE_NAMES, envName, flagPlaceholder, tableSpec, type TableName } from './config-tables';
import { renderValue } from './config-template';

/** What a reference block is of: a table, an array of tables, or the named flags. */
export type ReferenceName = TableName | EntryName | 'flags';

export const REFERENCE_NAMES: readonly ReferenceName[] = [...TABLE_NAMES, ...ENTRY_NAMES, 'flags'];

const MARKER = /<!-- config-reference: ([a-z.-]+) -->\n[\s\S]*?<!-- \/config-reference -->/g;

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string): string => `\`${cell(text)}\``;

function keyCell(key: string, spec: KeySpec<unknown>): string {
  return spec.aliases?.length ? `${code(key)} (also ${spec.aliases.map(code).join(', ')})` : code(key);
}

const meaning = (spec: KeySpec<unknown>): string => cell(spec.details ?? spec.doc);

function tableRows(name: TableName): string[] {
  const spec = tableSpec(name);
  return [
    '| key | type and range | default | environment | flag | meaning |',
    '|---|---|---|---|---|---|',
    ...Object.entries(spec.keys).map(([key, keySpec]) => {
      const variables = [envName(name, key), ...(keySpec.env ?? [])].map(code).join(', then ');
      const placeholder = flagPlaceholder(name, key);
      const flag = placeholder === undefined ? '–' : code(`--${name}.${key} ${placeholder}`);
      const value = code(renderValue(keySpec.kind, spec.defaults[key]));
      return `| ${keyCell(key, keySpec)} | ${cell(keySpec.what)} | ${value} | ${variables} | ${flag} | ${meaning(keySpec)} |`;
    }),
  ];
}

function entryRows(name: EntryName): string[] {
  const spec = entrySpec(name);
  const keys: KeySpecs = spec.keys;
  return [
    '| key | type and range | default | meaning |',
    '|---|---|---|---|',
    ...Object.entries(keys).map(([key, keySpec]) => {
      const value = Object.hasOwn(spec.defaults, key) ? code(renderValue(keySpec.kind, spec.defaults[key])) : 'required';
      const unique = spec.unique === key ? ` Distinct among the [[${name}]] entries.` : '';
      return `| ${keyCell(key, keySpec)} | ${cell(keySpec.what)} | ${value} | ${meaning(keySpec)}${unique} |`;
    }),
  ];
}

/** The keys with a flag of their own beside `[rpc]`'s and `[json-rpc]`'s, as `--help` shows them. */
function flagRows(): string[] {
  const named = TABLE_NAMES.flatMap((name) =>
    Object.entries(tableSpec(name).keys).flatMap(([key, keySpec]) => (keySpec.flag === undefined ? [] : [`| ${code(`--${name}.${key} ${keySpec.flag}`)} | \`[${name}] ${key}\` |`])),
  );
  return ['| flag | key |', '|---|---|', ...named, '| `--set <table>.<key>=<value>` | any key; repeatable |'];
}

/** One block's text, without its markers. */
export function referenceBlock(name: ReferenceName): string {
  if (name === 'flags') return flagRows().join('\n');
  return ((ENTRY_NAMES as readonly string[]).includes(name) ? entryRows(name as EntryName) : tableRows(name as TableName)).join('\n');
}

/** `markdown` with every marked block written anew; throws when a block is missing or names nothing known. */
export function updateReference(markdown: string): string {
  const seen = new Set<string>();
  const updated = markdown.replace(MARKER, (_, name: string) => {
    if (!(REFERENCE_NAMES as readonly string[]).includes(name)) throw new Error(`<!-- config-reference: ${name} -->: expected one of ${REFERENCE_NAMES.join(', ')}`);
    seen.add(name);
    return marked(name as ReferenceName);
  });
  const missing = REFERENCE_NAMES.filter((name) => !seen.has(name));
  if (missing.length > 0) throw new Error(`no <!-- config-reference: … --> block for ${missing.join(', ')}`);
  return updated;
}

const marked = (name: ReferenceName): string => `<!-- config-reference: ${name} -->\n${referenceBlock(name)}\n<!-- /config-reference -->`;

/** `rpc-gateway config reference`: rewrites the blocks of the `docs` file in place, or returns them all to print. */
export function writeReference(docs: string | undefined): string {
  if (docs === undefined) return `${REFERENCE_NAMES.map(marked).join('\n\n')}\n`;
  writeFileSync(docs, updateReference(readFileSync(docs, 'utf8')));
  return `wrote the configuration reference into ${docs}\n`;
}
