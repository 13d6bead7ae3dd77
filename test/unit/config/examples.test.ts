/**
 * The example files under config/ and the key tables in docs/configuration.md follow the template.
 * `UPDATE_CONFIG_EXAMPLES=1 npx jest test/unit/config/examples` rewrites the examples after a change.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_TABLES, envName, flagPlaceholder, TABLE_NAMES, tableSpec, type TableName } from '../../../src/config/config-tables';
import { CONFIG_FILE_NAMES, renderConfigFile, renderValue } from '../../../src/config/config-template';
import { loadConfig } from '../../../src/config/load-config';
import { tempHome } from './temp-home';

const root = join(__dirname, '..', '..', '..');

describe('config/ examples', () => {
  it.each(CONFIG_FILE_NAMES)('config/%s is what first start writes', (file) => {
    const path = join(root, 'config', file);
    if (process.env.UPDATE_CONFIG_EXAMPLES === '1') writeFileSync(path, renderConfigFile(file));
    const home = tempHome();
    loadConfig({ home });
    expect(readFileSync(path, 'utf8')).toBe(readFileSync(join(home, 'config', file), 'utf8'));
  });
});

describe('docs/configuration.md', () => {
  const docs = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
  const rows = Object.entries(CONFIG_TABLES).flatMap(([table, spec]) =>
    Object.entries(spec.keys).map(([key, keySpec]) => ({
      table,
      key,
      keySpec,
      value: (spec.defaults as Record<string, unknown>)[key],
    })),
  );

  it.each(rows.map((row) => [`[${row.table}] ${row.key}`, row] as const))(
    '%s has a row with its default, environment variable and flag',
    (_, { table, key, keySpec, value }) => {
      const row = docs.split('\n').find((line) => line.startsWith(`| \`${key}\` |`) && line.includes(envName(table, key)));
      expect(row).toBeDefined();
      expect(row).toContain(`\`${renderValue(keySpec.kind, value)}\``);
      if (flagPlaceholder(table as TableName, key)) expect(row).toContain(`\`--${table}.${key}\``);
    },
  );

  it('lists each named flag as --help shows it', () => {
    for (const table of TABLE_NAMES) {
      for (const [key, keySpec] of Object.entries(tableSpec(table).keys)) {
        if (keySpec.flag) expect(docs).toContain(`| \`--${table}.${key} ${keySpec.flag.replace(/\|/g, '\\|')}\` |`);
      }
    }
  });
});
