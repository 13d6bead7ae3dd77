/**
 * The plugin template of docs/plugins.md (docs/plugin-template), installed and built with the guide's
 * steps, as a plugin author's project builds it against the API's declarations.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/**
 * Builds the template in `work/hello` and returns that folder: next to it, the gateway as its
 * `file:../rpc-gateway` dev dependency finds it once built (its package.json's name, version and exports,
 * and the API's declarations); `npm install` in the copy (TypeScript and the linked gateway), then
 * `npx tsc -p tsconfig.json`.
 */
export function compileTemplate(work: string): string {
  const pkg = join(work, 'rpc-gateway');
  const hello = join(work, 'hello');
  mkdirSync(pkg, { recursive: true });
  const gateway = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; exports: object };
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: gateway.name, version: gateway.version, exports: gateway.exports }));
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--emitDeclarationOnly', '--sourceMap', 'false', '--outDir', join(pkg, 'dist')]);
  cpSync(join(ROOT, 'docs/plugin-template'), hello, { recursive: true });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: hello, stdio: 'ignore' });
  execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: hello });
  return hello;
}
