/**
 * Runs one coverage-guided fuzz target (test/fuzz/targets/<name>.ts) under jazzer.js:
 *
 *   node -r ./test/support/register-ts.js test/fuzz/run-jazzer.ts <target|all> [--minutes M | --runs N]
 *
 * (60 s when neither is given.) The corpus it grows and what it finds are kept in
 * node_modules/.cache/jazzer/<target>/{corpus,findings}; the committed seeds of test/fuzz/corpus/<target>/
 * are read, never written. Exit 1 when a run found something.
 *
 * Jazzer's native fuzzer (a prebuild in @jazzer.js/fuzzer) needs glibc 2.38 and libstdc++ 3.4.32. Where
 * the system's are older (Debian 12) it runs on Debian 13's libc, libstdc++ and libgcc, downloaded once
 * from the Debian archive into node_modules/.cache/jazzer-runtime, checked against the SHA-256 below,
 * and handed to node through that libc's dynamic loader. A pinned .deb that a Debian point release has
 * removed from the archive (HTTP 404) is replaced by trixie's current one, found in the archive's index
 * and checked through it: InRelease verified by gpgv against the system's Debian archive keyring, its
 * SHA-256 of Packages.xz, that index's SHA-256 of the .deb. A line on stderr names the version to pin.
 * JAZZER_RUNTIME_FROM_INDEX=1 takes every package from the index (to try that path: delete the runtime).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const CACHE = join(ROOT, 'node_modules', '.cache');
const JAZZER = join(ROOT, 'node_modules', '@jazzer.js', 'core', 'dist', 'cli.js');

/** The targets, and whether jazzer may call them synchronously (several times faster) or must await them. */
export const TARGETS = {
  envelope: 'async',
  'node-uri': 'async',
  query: 'sync',
  'evm-hex': 'sync',
  'evm-block-filter': 'sync',
} as const;
export type Target = keyof typeof TARGETS;

const DEBIAN = 'http://deb.debian.org/debian/';
/** Debian 13 (trixie) amd64 packages that carry the runtime the prebuild needs. */
const RUNTIME_DEBS = [
  { name: 'libc6', path: 'pool/main/g/glibc/libc6_2.41-12_amd64.deb', sha256: '6cff801097cd0eb2126b60e533f37afdc78456efacdf2bfae62877f00c795d0b' },
  { name: 'libstdc++6', path: 'pool/main/g/gcc-14/libstdc++6_14.2.0-19_amd64.deb', sha256: 'ab1fa05837aa7a92aae748fd07a18a35f7d18bb4a71c4724fe2bbf0e32089de0' },
  { name: 'libgcc-s1', path: 'pool/main/g/gcc-14/libgcc-s1_14.2.0-19_amd64.deb', sha256: '3c71917b490d1a17aed43196a2787a256ecf060526cdb20216a74bedc061b150' },
];
const RUNTIME = join(CACHE, 'jazzer-runtime');
const KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';
const PACKAGES_XZ = 'main/binary-amd64/Packages.xz';

/** The system's node when it loads the fuzzer's prebuild, else node under the downloaded runtime. */
async function nodeCommand(): Promise<string[]> {
  const probe = spawnSync(process.execPath, ['-e', 'require("@jazzer.js/fuzzer")'], { cwd: ROOT, encoding: 'utf8' });
  if (probe.status === 0) return [process.execPath];
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`jazzer's fuzzer does not load here:\n${probe.stderr}`);
  const lib = join(RUNTIME, 'usr', 'lib', 'x86_64-linux-gnu');
  if (!existsSync(lib)) await installRuntime();
  return [join(lib, 'ld-linux-x86-64.so.2'), '--library-path', lib, process.execPath];
}

/** Downloads, checks and unpacks the runtime; a concurrent install that finished first wins. */
async function installRuntime(): Promise<void> {
  mkdirSync(CACHE, { recursive: true });
  const work = mkdtempSync(join(CACHE, 'jazzer-runtime-'));
  try {
    let index: Promise<string> | undefined;
    const replaced: string[] = [];
    for (const deb of RUNTIME_DEBS) {
      let bytes = process.env.JAZZER_RUNTIME_FROM_INDEX === '1' ? undefined : await download(deb.path, deb.sha256);
      if (!bytes) {
        const current = packageStanza(await (index ??= trixiePackages(work)), deb.name, 'amd64');
        if (!current?.Filename || !/^[0-9a-f]{64}$/.test(current.SHA256 ?? '')) throw new Error(`${deb.name}: not in trixie's ${PACKAGES_XZ}`);
        bytes = await download(current.Filename, current.SHA256);
        if (!bytes) throw new Error(`${DEBIAN + current.Filename}: HTTP 404`);
        replaced.push(`${deb.path.split('/').pop()} -> ${current.Version} { name: '${deb.name}', path: '${current.Filename}', sha256: '${current.SHA256}' }`);
      }
      const file = join(work, 'package.deb');
      writeFileSync(file, bytes);
      const x = spawnSync('dpkg-deb', ['-x', file, join(work, 'root')], { encoding: 'utf8' });
      if (x.status !== 0) throw new Error(`dpkg-deb -x ${deb.path}: ${x.stderr || x.error}`);
    }
    if (replaced.length) {
      const why = process.env.JAZZER_RUNTIME_FROM_INDEX === '1' ? 'JAZZER_RUNTIME_FROM_INDEX=1' : 'pinned .deb gone from the archive (HTTP 404)';
      process.stderr.write(`jazzer runtime: ${why}, used trixie's current from its signed index; to pin in RUNTIME_DEBS (test/fuzz/run-jazzer.ts): ${replaced.join(', ')}\n`);
    }
    try {
      renameSync(join(work, 'root'), RUNTIME);
    } catch (err) {
      if (!existsSync(RUNTIME)) throw err;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The archive's file at `path`, checked against `sha256` when given; undefined when it answers 404. */
async function download(path: string, sha256?: string): Promise<Buffer | undefined> {
  const res = await fetch(DEBIAN + path);
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`${DEBIAN + path}: HTTP ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== undefined && actual !== sha256) throw new Error(`${DEBIAN + path}: SHA-256 ${actual}, expected ${sha256}`);
  return bytes;
}

/**
 * Trixie's amd64 Packages index, decompressed: InRelease must carry a good signature by a key of the Debian
 * archive keyring (others may be by keys this system's keyring lacks, as apt allows) and none bad, and the
 * index must have the SHA-256 that the signed text gives it.
 */
async function trixiePackages(work: string): Promise<string> {
  const signed = await download('dists/trixie/InRelease');
  if (!signed) throw new Error(`${DEBIAN}dists/trixie/InRelease: HTTP 404`);
  writeFileSync(join(work, 'InRelease'), signed);
  const gpgv = spawnSync('gpgv', ['--status-fd', '1', '--keyring', KEYRING, '--output', join(work, 'Release'), join(work, 'InRelease')], { encoding: 'utf8' });
  if (!/^\[GNUPG:\] GOODSIG /m.test(gpgv.stdout ?? '') || /^\[GNUPG:\] (BADSIG|REVKEYSIG) /m.test(gpgv.stdout ?? '')) {
    throw new Error(`${DEBIAN}dists/trixie/InRelease: no good signature by ${KEYRING}:\n${gpgv.stderr || gpgv.error}`);
  }
  const release = readFileSync(join(work, 'Release'), 'utf8');
  const sha256 = /^Codename: trixie$/m.test(release) ? releaseSha256(release, PACKAGES_XZ) : undefined;
  if (!sha256) throw new Error(`${DEBIAN}dists/trixie/InRelease: no trixie SHA256 for ${PACKAGES_XZ}`);
  const xz = await download(`dists/trixie/${PACKAGES_XZ}`, sha256);
  if (!xz) throw new Error(`${DEBIAN}dists/trixie/${PACKAGES_XZ}: HTTP 404`);
  const packages = spawnSync('xz', ['-dc'], { input: xz, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (packages.status !== 0) throw new Error(`xz -dc ${PACKAGES_XZ}: ${packages.stderr || packages.error}`);
  return packages.stdout;
}

/** The SHA-256 that a Release file's SHA256 field gives `file` (e.g. main/binary-amd64/Packages.xz). */
export function releaseSha256(release: string, file: string): string | undefined {
  const field = /^SHA256:[^\n]*\n((?:[ \t][^\n]*(?:\n|$))*)/m.exec(release)?.[1] ?? '';
  for (const line of field.split('\n')) {
    const [sha256, , name] = line.trim().split(/\s+/);
    if (name === file && /^[0-9a-f]{64}$/.test(sha256)) return sha256;
  }
  return undefined;
}

/** The fields (first lines only) of the stanza of package `name` for `arch` in a Packages index. */
export function packageStanza(packages: string, name: string, arch: string): Record<string, string> | undefined {
  for (const stanza of packages.split(/\n[ \t]*\n/)) {
    if (!stanza.includes(`Package: ${name}\n`)) continue;
    const fields: Record<string, string> = {};
    for (const m of stanza.matchAll(/^([^\s:]+):[ \t]*(.*)$/gm)) fields[m[1]] ??= m[2].trimEnd();
    if (fields.Package === name && fields.Architecture === arch) return fields;
  }
  return undefined;
}

export interface RunOptions {
  /** Stop after this long. */
  readonly seconds?: number;
  /** Stop after this many inputs. */
  readonly runs?: number;
  /** Where new inputs are kept (created if missing). */
  readonly corpus: string;
  /** Where a crashing, hanging or out-of-memory input is written. */
  readonly findings: string;
  /** Each line of jazzer's output as it comes. */
  readonly onLine?: (line: string) => void;
}

export interface RunResult {
  readonly target: Target;
  /** Jazzer's exit code: 0 when nothing was found. */
  readonly code: number | null;
  /** Inputs executed. */
  readonly runs: number;
  /** Whether libFuzzer ran and printed its final statistics (on a finding, at `-runs`, at `-max_total_time`). */
  readonly finished: boolean;
  /** Coverage (edges) and features after the seeds were loaded, and at the end. */
  readonly initial: { readonly cov: number; readonly ft: number };
  readonly final: { readonly cov: number; readonly ft: number };
  readonly seconds: number;
  /** Files this run wrote to `findings`. */
  readonly findings: string[];
  readonly output: string;
}

/** Runs `target` until `seconds` or `runs`, whichever comes first (one of them is needed). */
export async function runJazzer(target: Target, options: RunOptions): Promise<RunResult> {
  if (options.seconds === undefined && options.runs === undefined) throw new Error('runJazzer: seconds or runs');
  const node = await nodeCommand();
  mkdirSync(options.corpus, { recursive: true });
  mkdirSync(options.findings, { recursive: true });
  const before = new Set(readdirSync(options.findings));
  const args = [
    JAZZER,
    join(__dirname, 'target.js'),
    options.corpus,
    join(__dirname, 'corpus', target),
    '--includes', join(ROOT, 'src') + '/',
    ...(TARGETS[target] === 'sync' ? ['--sync'] : []),
    '--',
    ...(options.seconds === undefined ? [] : [`-max_total_time=${Math.ceil(options.seconds)}`]),
    ...(options.runs === undefined ? [] : [`-runs=${options.runs}`]),
    `-artifact_prefix=${options.findings}/`,
    '-print_final_stats=1',
  ];
  const started = performance.now();
  const child = spawn(node[0], [...node.slice(1), ...args], { cwd: ROOT, env: { ...process.env, FUZZ_TARGET: target }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let partial = '';
  const take = (chunk: Buffer) => {
    output += chunk;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) options.onLine?.(line);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const code = await new Promise<number | null>((done, fail) => child.on('error', fail).on('close', done));
  if (partial) options.onLine?.(partial);
  const stats = [...output.matchAll(/^#\d+\s+\w+\s+cov: (\d+) ft: (\d+)/gm)].map((m) => ({ cov: Number(m[1]), ft: Number(m[2]) }));
  const none = { cov: 0, ft: 0 };
  const executed = /stat::number_of_executed_units: (\d+)/.exec(output);
  return {
    target,
    code,
    runs: Number(executed?.[1] ?? 0),
    finished: executed !== null,
    initial: stats[0] ?? none,
    final: stats.at(-1) ?? none,
    seconds: (performance.now() - started) / 1000,
    findings: readdirSync(options.findings).filter((f) => !before.has(f)).map((f) => join(options.findings, f)),
    output,
  };
}

function summary(r: RunResult): string {
  const found = r.findings.length ? `FOUND ${r.findings.join(', ')}` : 'nothing found';
  return `${r.target}: ${r.runs} runs in ${r.seconds.toFixed(0)} s, cov ${r.initial.cov} -> ${r.final.cov}, ft ${r.initial.ft} -> ${r.final.ft}, exit ${r.code}, ${found}`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const flag = (f: string) => {
    const i = rest.indexOf(f);
    return i < 0 ? undefined : Number(rest[i + 1]);
  };
  const targets = name === 'all' ? (Object.keys(TARGETS) as Target[]) : [name as Target];
  if (!name || !targets.every((t) => t in TARGETS)) {
    process.stderr.write(`usage: run-jazzer <${Object.keys(TARGETS).join('|')}|all> [--minutes M | --runs N]\n`);
    return 2;
  }
  const runs = flag('--runs');
  const minutes = flag('--minutes') ?? (runs === undefined ? 1 : undefined);
  let failed = false;
  for (const target of targets) {
    const home = join(CACHE, 'jazzer', target);
    const result = await runJazzer(target, {
      seconds: minutes === undefined ? undefined : minutes * 60,
      runs,
      corpus: join(home, 'corpus'),
      findings: join(home, 'findings'),
      onLine: (line) => process.stderr.write(line + '\n'),
    });
    process.stdout.write(summary(result) + '\n');
    failed ||= result.code !== 0 || result.findings.length > 0;
  }
  return failed ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (err: Error) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(2);
  });
}
