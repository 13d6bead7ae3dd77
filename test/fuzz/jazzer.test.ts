/**
 * A short coverage-guided run of every jazzer target (test/fuzz/targets), from its committed seeds: no
 * finding, a meaningful number of inputs, coverage features grown past the seeds'. A long run is
 * `node -r ./test/support/register-ts.js test/fuzz/run-jazzer.ts <target> --minutes 30` (see README).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageStanza, releaseSha256, runJazzer, TARGETS, type Target } from './run-jazzer';

/**
 * Inputs each short run makes: the slowest targets (envelope, node-uri: whole engines) make about 2,000 a
 * second. A count, not a duration: on a busy machine a few seconds may go to jazzer's start-up alone.
 */
const RUNS = 5000;
/** What a run may take at most; one that reaches it before RUNS inputs fails. */
const SECONDS = 60;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'jazzer-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(Object.keys(TARGETS) as Target[])('jazzer target %s', (target) => {
  it(`runs ${RUNS} inputs from its seeds with nothing found`, async () => {
    const run = () => runJazzer(target, { runs: RUNS, seconds: SECONDS, corpus: join(work, target, 'corpus'), findings: join(work, target, 'findings') });
    let result = await run();
    // Exit 0 without libFuzzer's statistics: jazzer's start-up ended before libFuzzer ran (seen once in a
    // full run, 0 inputs, never alone). Run once more; a target that keeps the fuzzer from running does so
    // every time.
    if (result.code === 0 && !result.finished) result = await run();
    const ok = result.code === 0 && result.findings.length === 0 && result.runs >= RUNS && result.final.ft > result.initial.ft;
    if (!ok) {
      throw new Error(`exit ${result.code}, ${result.runs} runs, ft ${result.initial.ft} -> ${result.final.ft}, found ${result.findings.join(', ') || 'nothing'}:\n${result.output.slice(-4000)}`);
    }
  }, 2 * SECONDS * 1000 + 30_000);
});

describe('the runtime\'s fallback to trixie\'s index', () => {
  const a = 'a'.repeat(64);
  const b = 'b'.repeat(64);
  const release = [
    'Origin: Debian',
    'Codename: trixie',
    'MD5Sum:',
    ' 203e1451a4c2e0edf3646a5da3cec2d8  9679304 main/binary-amd64/Packages.xz',
    'SHA256:',
    ` ${a}  4534476 main/binary-all/Packages.xz`,
    ` ${b}  9679304 main/binary-amd64/Packages.xz`,
    ` ${a}      116 main/binary-amd64/Release`,
    'NotAutomatic: no',
  ].join('\n');

  it('takes a file\'s SHA-256 from the Release SHA256 field only', () => {
    expect(releaseSha256(release, 'main/binary-amd64/Packages.xz')).toBe(b);
    expect(releaseSha256(release, 'main/binary-arm64/Packages.xz')).toBeUndefined();
    expect(releaseSha256(release.replace('SHA256:', 'SHA512:'), 'main/binary-amd64/Packages.xz')).toBeUndefined();
  });

  it('finds the stanza of a package and architecture', () => {
    const packages = [
      'Package: libc6-dev\nArchitecture: amd64\nVersion: 2.41-13\nFilename: pool/main/g/glibc/libc6-dev_2.41-13_amd64.deb\nSHA256: ' + a,
      'Package: libc6\nSource: glibc\nVersion: 2.41-13\nArchitecture: i386\nFilename: pool/main/g/glibc/libc6_2.41-13_i386.deb\nSHA256: ' + a,
      'Package: libc6\nSource: glibc\nVersion: 2.41-13\nArchitecture: amd64\nDescription: GNU C Library: Shared libraries\n Filename: not/this.deb\nFilename: pool/main/g/glibc/libc6_2.41-13_amd64.deb\nSHA256: ' + b,
      '',
    ].join('\n\n');
    expect(packageStanza(packages, 'libc6', 'amd64')).toMatchObject({ Version: '2.41-13', Filename: 'pool/main/g/glibc/libc6_2.41-13_amd64.deb', SHA256: b });
    expect(packageStanza(packages, 'libc6', 'arm64')).toBeUndefined();
    expect(packageStanza(packages, 'libc', 'amd64')).toBeUndefined();
  });
});
