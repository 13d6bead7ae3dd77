import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option, type OutputConfiguration } from 'commander';
import { TABLE_NAMES, flagPlaceholder, tableSpec, type TableName } from './config-tables';
import type { KeySpec } from './config-table-spec';
import { formatDuration } from './duration';

export interface CliInvocation {
  /**
   * `start` the gateway, list the `plugins` its configuration loads, run only the broadcast queue's
   * `worker`s, print the effective configuration (`config check`) or the key reference of the docs
   * (`config reference`).
   */
  command: 'start' | 'plugins' | 'worker' | 'config-check' | 'config-reference';
  /** Absolute home directory. */
  home: string;
  /** Dotted key names to values, as loadConfig takes them. */
  flags: Record<string, string>;
  /** `config reference --docs FILE`: the markdown file whose reference blocks are rewritten. */
  docs?: string;
}

const DEFAULT_HOME = '~/.rpc-gateway';

/** The gateway's version, from package.json (`../../package.json` from src/config and from dist/config). */
export const VERSION: string = (require('../../package.json') as { version: string }).version;

/**
 * The heading each table's flags are listed under in `start --help`, in this order; a table not named
 * here comes after them, under its own title.
 */
const HELP_GROUPS: Partial<Record<TableName, string>> = {
  rpc: 'Node RPC (CometBFT [rpc], config.toml):',
  'json-rpc': 'EVM JSON-RPC ([json-rpc], app.toml):',
  tls: 'TLS of the EVM JSON-RPC ([tls], app.toml):',
  backend: 'Backend: the embedded devnet or upstream nodes ([backend], gateway.toml):',
  devnet: 'Embedded devnet ([devnet], gateway.toml):',
  cache: 'Response cache of upstream mode ([cache], gateway.toml):',
  queue: 'Broadcast queue ([queue], gateway.toml):',
  plugins: 'Plugins ([plugins], gateway.toml):',
  instrumentation: 'Metrics and probes ([instrumentation], config.toml):',
  log: 'Logging ([log], gateway.toml):',
};
const GENERAL_GROUP = 'General:';

/**
 * Parses the command line (`process.argv`: node, script, then the arguments). Help, a usage error or
 * a missing command throw commander's CommanderError after printing (the caller exits with its
 * `exitCode`), so nothing here ends the process.
 */
export function parseCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  output?: OutputConfiguration,
): CliInvocation {
  const program = new Command('rpc-gateway')
    .description('Gateway for the CometBFT node RPC and the EVM JSON-RPC, over an embedded devnet or upstream nodes.')
    .version(VERSION, '-v, --version', 'Print the version and exit.')
    .exitOverride()
    .showHelpAfterError('(add --help for the commands and flags)');
  if (output) program.configureOutput(output);

  let invocation: CliInvocation | undefined;
  // A command's action: its home, and its --set settings with the named flags over them.
  const invoke = (command: CliInvocation['command'], namedFlags: ReadonlyMap<string, string>) => (options: Record<string, unknown>) => {
    const flags: Record<string, string> = { ...(options.set as Record<string, string> | undefined) };
    for (const [attribute, dotted] of namedFlags) {
      if (options[attribute] !== undefined) flags[dotted] = String(options[attribute]);
    }
    const docs = typeof options.docs === 'string' ? { docs: resolve(options.docs) } : {};
    invocation = { command, home: expandHome((options.home as string | undefined) ?? env.RPCGW_HOME ?? DEFAULT_HOME), flags, ...docs };
  };
  const start = program
    .command('start')
    .description('Start the gateway with the configuration under the home directory.')
    .addOption(new Option('--home <dir>', `Home directory holding config/ (default: ${DEFAULT_HOME}, or $RPCGW_HOME).`).helpGroup(GENERAL_GROUP))
    .addOption(
      new Option('--set <table.key=value>', 'Set any key of config.toml, app.toml or gateway.toml; repeatable.')
        .argParser(collectSetting)
        .helpGroup(GENERAL_GROUP),
    )
    .addHelpOption(new Option('-h, --help', 'Show this help.').helpGroup(GENERAL_GROUP));

  const namedFlags = addConfigFlags(start);

  start
    .addHelpText(
      'after',
      '\nUpstream mode (--backend.kind upstream) serves from the pools listed in gateway.toml as [[upstream.node]]\n' +
        '(CometBFT RPC URLs) and [[upstream.evm]] (EVM HTTP/WS URLs); see docs/upstream.md.\n' +
        'Every key can also be set by the environment variable RPCGW_<TABLE>_<KEY> (e.g. RPCGW_RPC_LADDR).\n' +
        'Precedence: config files < environment < flags. The defaults shown are the built-in ones, which a\n' +
        "home's config files may change. Every key: docs/configuration.md.",
    )
    .action(invoke('start', namedFlags));

  // Commands that only read the configuration: --home and --set, as `start` takes them (`plugins` every flag of
  // `start` too: it runs the checks `start` runs, with the same configuration).
  const configCommand = (command: 'plugins' | 'worker', description: string, named?: (command: Command) => Map<string, string>) => {
    const sub = program
      .command(command)
      .description(description)
      .option('--home <dir>', `Home directory holding config/ (default: ${DEFAULT_HOME}, or $RPCGW_HOME).`)
      .option('--set <table.key=value>', 'Set any key of config.toml, app.toml or gateway.toml; repeatable.', collectSetting);
    sub.action(invoke(command, named?.(sub) ?? new Map<string, string>()));
  };
  configCommand(
    'plugins',
    'List the plugins the configuration loads: their namespaces, methods, and whether each is served; exits 1 when start would refuse one (a route that collides).',
    addConfigFlags,
  );
  configCommand('worker', "Deliver the broadcast queue's transactions (on [queue] redis_url) to the upstream nodes; no RPC listener.");
  const configCommands = program.command('config').description('Commands about the configuration files.');
  const check = configCommands
    .command('check')
    .description(
      'Print the effective configuration (secrets redacted), where each value came from (file, environment, flag, default) and every warning; exit 1 on an error.',
    )
    .option('--home <dir>', `Home directory holding config/ (default: ${DEFAULT_HOME}, or $RPCGW_HOME).`)
    .option('--set <table.key=value>', 'Set any key of config.toml, app.toml or gateway.toml; repeatable.', collectSetting);
  check.action(invoke('config-check', addConfigFlags(check)));
  configCommands
    .command('reference')
    .description("Print the key reference of docs/configuration.md, written from the keys' declarations (npm run docs:config).")
    .option('--docs <file>', 'Write it into the <!-- config-reference: … --> blocks of this markdown file instead.')
    .action(invoke('config-reference', new Map<string, string>()));

  program.parse(argv, { from: 'node' });
  return invocation ?? program.help({ error: true });
}

/** Adds a flag per configuration key that has one (`--rpc.laddr`, `--json-rpc.api`, …) under its table's heading; returns option attribute → dotted key. */
function addConfigFlags(command: Command): Map<string, string> {
  const namedFlags = new Map<string, string>();
  const order = Object.keys(HELP_GROUPS);
  const rank = (table: string) => (order.includes(table) ? order.indexOf(table) : order.length);
  for (const table of [...TABLE_NAMES].sort((a, b) => rank(a) - rank(b))) {
    const spec = tableSpec(table);
    const group = HELP_GROUPS[table] ?? `${spec.title} ([${table}], ${spec.file}):`;
    for (const [key, keySpec] of Object.entries(spec.keys)) {
      const placeholder = flagPlaceholder(table, key);
      if (placeholder === undefined) continue;
      const option = new Option(`--${table}.${key} ${placeholder}`, `${keySpec.doc} (default: ${helpDefault(keySpec, spec.defaults[key])})`);
      command.addOption(option.helpGroup(group));
      namedFlags.set(option.attributeName(), `${table}.${key}`);
    }
  }
  return namedFlags;
}

/** A key's built-in default as it would be typed after its flag. */
function helpDefault(spec: KeySpec<unknown>, value: unknown): string {
  if (spec.kind === 'duration' && typeof value === 'number') return formatDuration(value);
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  if (value === '') return 'none';
  return String(value);
}

function collectSetting(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([^=]+\.[^=]+)=(.*)$/s.exec(text);
  if (!match) throw new InvalidArgumentError('expected <table>.<key>=<value>, e.g. rpc.max_body_bytes=2000000');
  return { ...previous, [match[1].trim()]: match[2] };
}

function expandHome(dir: string): string {
  return resolve(dir === '~' || dir.startsWith('~/') ? join(homedir(), dir.slice(1)) : dir);
}
