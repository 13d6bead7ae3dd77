'use strict';
/**
 * Runs benchmarks under two Node.js binaries in one run: the machine's own `node` (the first on PATH
 * outside this package's node_modules) and the runtime the package runs on (node_modules/.bin/node, the
 * `node` dev dependency). Each bench spawns its gateways and helpers with process.execPath, so the whole
 * route runs on the binary under test. Benches alternate old, new, per bench; BENCH_* variables pass
 * through to them.
 *
 *   node bench/runtimes.js [bench file…]     (default: upstream-proxy.js one-at-a-time.js)
 *   OLD_NODE=/path/to/node overrides the machine's own.
 */
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { delimiter, join } = require('node:path');

const ROOT = join(__dirname, '..');
const BUNDLED = join(ROOT, 'node_modules', '.bin', 'node');

function machineNode() {
  if (process.env.OLD_NODE) return process.env.OLD_NODE;
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.includes('node_modules'));
  const found = dirs.map((dir) => join(dir, 'node')).find((path) => existsSync(path));
  if (!found) throw new Error('no node on PATH outside node_modules: set OLD_NODE');
  return found;
}

const version = (bin) => execFileSync(bin, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
const benches = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['upstream-proxy.js', 'one-at-a-time.js'];
const runtimes = [machineNode(), BUNDLED].map((bin) => ({ bin, version: version(bin) }));
if (!existsSync(join(ROOT, 'dist', 'main.js'))) throw new Error('build first: npm run build');

for (const bench of benches) {
  for (const { bin, version: v } of runtimes) {
    console.log(`\n== ${bench} on Node.js ${v} (${bin})`);
    execFileSync(bin, [join(__dirname, bench)], { stdio: 'inherit' });
  }
}
