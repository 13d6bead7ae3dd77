/**
 * The project runs on one Node.js line: the one `engines` declares, which the `node` dev dependency
 * brings to a machine whose own Node.js is older (npm scripts put node_modules/.bin first on PATH).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
};
const major = (range: string): number => Number(/(\d+)/.exec(range)?.[1]);

describe('Node.js runtime', () => {
  it('runs on the supported LTS line', () => {
    expect(pkg.engines.node).toBe('>=24');
    expect(Number(process.versions.node.split('.')[0])).toBe(24);
  });

  it('is the line the bundled runtime and the type definitions are on', () => {
    expect(major(pkg.devDependencies.node)).toBe(24);
    expect(major(pkg.devDependencies['@types/node'])).toBe(24);
    // npm runs the package's install script (which fetches its platform's binary) only when approved.
    expect(pkg.allowScripts.node).toBe(true);
  });

  it('is the runtime child processes get, by process.execPath or by name on PATH', () => {
    for (const file of [process.execPath, 'node']) expect(execFileSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()).toBe(process.versions.node);
  });
});
