/**
 * The example files under config/ follow the template, and docs/configuration.md's key reference the declarations.
 * `UPDATE_CONFIG_EXAMPLES=1 npx jest test/unit/config/examples` rewrites the examples after a change.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { updateReference } from '../../../src/config/config-reference';
import { CONFIG_FILE_NAMES, renderConfigFile } from '../../../src/config/config-template';
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
  it('has the key reference the declarations give (npm run docs:config writes it)', () => {
    const docs = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
    expect(docs).toBe(updateReference(docs));
  });

  it('refuses a file without a block for every table', () => {
    expect(() => updateReference('<!-- config-reference: rpc -->\n<!-- /config-reference -->\n')).toThrow(/^no <!-- config-reference: … --> block for instrumentation, json-rpc, /);
  });
});
