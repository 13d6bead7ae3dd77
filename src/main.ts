#!/usr/bin/env node
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import { CommanderError } from 'commander';
import { startGateway, type RunningGateway } from './bootstrap';
import { parseCli, VERSION } from './config/cli';
import { formatConfigCheck } from './config/config-check';
import { writeReference } from './config/config-reference';
import { ConfigError } from './config/config-error';
import type { AppConfig } from './config/config.types';
import { resolveConfig } from './config/load-config';
import { EventBus } from './events';
import { followBlocks } from './logging/block-lines';
import { createGatewayLogger } from './logging/gateway-logger';
import { createPlainDestination, resolveLogOutput, type LogOutput } from './logging/plain-output';
import { renderBanner, summarizeGateway } from './logging/startup-banner';
import { loadPlugins, pluginNamespaces } from './plugins/loader';
import { formatPluginListing, listingCollides, listPlugins } from './plugins/plugin-listing';
import { startWorker } from './queue/worker-process';

/**
 * `rpc-gateway start --home DIR [flags]`: load the configuration, start the gateway, stop on signals.
 * On a terminal (`[log] format = "auto"`, or `plain`) it prints a banner once ready, a line per devnet
 * block and readable log lines; elsewhere (or with `json`) every line is a JSON log object.
 * `rpc-gateway plugins --home DIR [flags]`: list the plugins the configuration loads (exit code 1 when a method collides).
 * `rpc-gateway config check --home DIR [flags]`: the effective configuration, its origins and warnings (exit code 1 on an error).
 * `rpc-gateway config reference [--docs FILE]`: the key reference of docs/configuration.md, from the declarations.
 */
async function main(): Promise<void> {
  const cli = parseCli(process.argv);
  if (cli.command === 'config-reference') {
    process.stdout.write(writeReference(cli.docs));
    return;
  }
  const resolved = resolveConfig({ home: cli.home, env: process.env, flags: cli.flags, pluginNamespaces });
  if (cli.command === 'config-check') {
    process.stdout.write(formatConfigCheck(resolved));
    return;
  }
  const { config, warnings } = resolved;
  const output = resolveLogOutput(config.gateway.log.format, process.stdout, process.env);
  const logDestination = output.plain ? createPlainDestination({ color: output.color }) : undefined;
  const configLog = createGatewayLogger(config.gateway.log.level, logDestination).child({ context: 'Config' });
  for (const warning of warnings) configLog.warn(warning);
  if (cli.command === 'plugins') {
    const listing = listPlugins(loadPlugins(config.gateway.plugins, config.home), config);
    process.stdout.write(formatPluginListing(listing));
    // Start would refuse this configuration: say so with the exit code too.
    if (listingCollides(listing)) process.exitCode = 1;
    return;
  }
  if (cli.command === 'worker') return runWorker(config);
  const gateway = await startGateway(config, logDestination ? { logDestination } : {});
  const logger = new Logger('Gateway');
  const stopBlockLines = await announce(gateway, config, output, logger);
  let stopping = false;
  // SIGTERM/SIGINT: not ready at once, stop accepting, drain calls in flight, close. A second signal exits now.
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    stopBlockLines?.();
    logger.log(`${signal}: draining and shutting down`);
    await gateway.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * Says the gateway is ready: the banner and then a line per devnet block (plain output; returns what
 * stops those lines), or JSON lines naming the listeners, the version and the chain ids.
 */
async function announce(gateway: RunningGateway, config: AppConfig, output: LogOutput, logger: Logger): Promise<(() => void) | undefined> {
  if (output.plain) {
    const summary = await summarizeGateway(gateway, config, VERSION, { devAccounts: true });
    process.stdout.write(renderBanner(summary, { color: output.color, readyMs: performance.now() }));
    if (config.gateway.backend.kind !== 'embedded') return undefined;
    const blocks = new Logger('Blocks');
    return followBlocks(gateway.app.get(EventBus), (line) => blocks.log(line));
  }
  logger.log(`node RPC listening on ${gateway.nodeRpcUrls.join(', ')} (home ${config.home})`);
  if (gateway.evmHttpUrl) logger.log(`EVM JSON-RPC listening on ${gateway.evmHttpUrl} and ${gateway.evmWsUrl}`);
  const summary = await summarizeGateway(gateway, config, VERSION, { devAccounts: false });
  logger.log({
    msg: `rpc-gateway ${VERSION} ready`,
    version: VERSION,
    backend: summary.backend,
    chain_id: summary.chainId,
    evm_chain_id: summary.evmChainId?.toString(),
    node_rpc: summary.nodeRpcUrls,
    evm_http: summary.evmHttpUrl,
    evm_ws: summary.evmWsUrl,
    metrics: summary.metricsUrl,
    home: summary.home,
  });
  return undefined;
}

/** `rpc-gateway worker`: the queue's workers only; a signal stops taking jobs and lets those under way finish. */
async function runWorker(config: Parameters<typeof startWorker>[0]): Promise<void> {
  const worker = await startWorker(config);
  const logger = new Logger('Worker');
  logger.log(`broadcast queue worker running (home ${config.home})${worker.metricsUrl ? `; metrics on ${worker.metricsUrl}` : ''}`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.log(`${signal}: finishing the deliveries under way`);
    await worker.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
