import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const homes: string[] = [];

/** A fresh home; with `files`, `config/<name>` is written with the given text first. */
export function tempHome(files: Record<string, string> = {}): string {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-config-'));
  homes.push(home);
  mkdirSync(join(home, 'config'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(home, 'config', name), text);
  return home;
}

/** A home whose config/<name> is a copy of fixtures/<fixture>. */
export function homeWithFixture(name: string, fixture: string): string {
  const home = tempHome();
  copyFileSync(join(__dirname, 'fixtures', fixture), join(home, 'config', name));
  return home;
}

afterAll(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
