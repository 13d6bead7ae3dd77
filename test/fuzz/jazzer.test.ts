/**
 * A short coverage-guided run of every jazzer target (test/fuzz/targets), from its committed seeds: no
 * finding, a meaningful number of inputs, coverage features grown past the seeds'. A long run is
 * `node -r ./test/support/register-ts.js test/fuzz/run-jazzer.ts <target> --minutes 30` (see README).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJazzer, TARGETS, type Target } from './run-jazzer';

/** Per target; with jazzer's start-up (3-5 s) the folder takes under a minute. */
const SECONDS = 5;
/** Inputs a short run must reach: the slowest targets (envelope, node-uri: whole engines) do about 5 times this. */
const MIN_RUNS = 2000;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'jazzer-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(Object.keys(TARGETS) as Target[])('jazzer target %s', (target) => {
  it(`runs ${SECONDS} s from its seeds with nothing found`, async () => {
    const result = await runJazzer(target, { seconds: SECONDS, corpus: join(work, target, 'corpus'), findings: join(work, target, 'findings') });
    if (result.code !== 0 || result.findings.length > 0) {
      throw new Error(`exit ${result.code}, found ${result.findings.join(', ') || 'nothing'}:\n${result.output.slice(-4000)}`);
    }
    expect(result.runs).toBeGreaterThanOrEqual(MIN_RUNS);
    expect(result.final.ft).toBeGreaterThan(result.initial.ft);
  }, 120_000);
});
