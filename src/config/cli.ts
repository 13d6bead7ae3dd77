import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option, type OutputConfiguration } from 'commander';
import { TABLE_NAMES, tableSpec } from './config-tables';

export interface CliInvocation {
  /** `start` the gateway, or list the `plugins` its configuration loads. */
  command: 'start' | 'plugins';
  /** Absolute home directory. */
  home: string;
  /** Dotted key names to values, as loadConfig takes them. */
  flags: Record<string, string>;
}

const DEFAULT_HOME = '~/.rpc-gateway';

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
    .exitOverride()
    .showHelpAfterError('(add --help for the commands and flags)');
  if (output) program.configureOutput(output);

  let invocation: CliInvocation | undefined;
  const start = program
    .command('start')
    .description('Start the gateway with the configuration under the home directory.')
    .option('--home <dir>', `Home directory holding config/ (default: ${DEFAULT_HOME}, or $RPCGW_HOME).`);

  const namedFlags = new Map<string, string>();
  for (const table of TABLE_NAMES) {
    for (const [key, spec] of Object.entries(tableSpec(table).keys)) {
      if (!spec.flag) continue;
      const option = new Option(`--${table}.${key} ${spec.flag}`, spec.doc);
      start.addOption(option);
      namedFlags.set(option.attributeName(), `${table}.${key}`);
    }
  }

  start
    .option('--set <table.key=value>', 'Set any key of config.toml, app.toml or gateway.toml; repeatable.', collectSetting)
    .addHelpText(
      'after',
      '\nEvery key can also be set by the environment variable RPCGW_<TABLE>_<KEY> (e.g. RPCGW_RPC_LADDR).\n' +
        'Precedence: config files < environment < flags. Keys and defaults: docs/configuration.md.',
    )
    .action((options: Record<string, unknown>) => {
      const flags: Record<string, string> = { ...(options.set as Record<string, string> | undefined) };
      for (const [attribute, dotted] of namedFlags) {
        if (options[attribute] !== undefined) flags[dotted] = String(options[attribute]);
      }
      const home = (options.home as string | undefined) ?? env.RPCGW_HOME ?? DEFAULT_HOME;
      invocation = { command: 'start', home: expandHome(home), flags };
    });

  program
    .command('plugins')
    .description('List the plugins the configuration loads: their namespaces, methods, and whether each is served.')
    .option('--home <dir>', `Home directory holding config/ (default: ${DEFAULT_HOME}, or $RPCGW_HOME).`)
    .option('--set <table.key=value>', 'Set any key of config.toml, app.toml or gateway.toml; repeatable.', collectSetting)
    .action((options: { home?: string; set?: Record<string, string> }) => {
      invocation = { command: 'plugins', home: expandHome(options.home ?? env.RPCGW_HOME ?? DEFAULT_HOME), flags: { ...options.set } };
    });

  program.parse(argv, { from: 'node' });
  return invocation ?? program.help({ error: true });
}

function collectSetting(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([^=]+\.[^=]+)=(.*)$/s.exec(text);
  if (!match) throw new InvalidArgumentError('expected <table>.<key>=<value>, e.g. rpc.max_body_bytes=2000000');
  return { ...previous, [match[1].trim()]: match[2] };
}

function expandHome(dir: string): string {
  return resolve(dir === '~' || dir.startsWith('~/') ? join(homedir(), dir.slice(1)) : dir);
}
