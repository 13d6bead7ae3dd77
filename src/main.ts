#!/usr/bin/env node
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { CommanderError } from 'commander';
import { startGateway } from './bootstrap';
import { parseCli } from './config/cli';
import { ConfigError } from './config/config-error';
import { loadConfig } from './config/load-config';
import { loadPlugins, pluginNamespaces } from './plugins/loader';
import { formatPluginListing, listPlugins } from './plugins/plugin-listing';

/**
 * `rpc-gateway start --home DIR [flags]`: load the configuration, start the gateway, stop on signals.
 * `rpc-gateway plugins --home DIR`: list the plugins the configuration loads.
 */
async function main(): Promise<void> {
  const cli = parseCli(process.argv);
  const config = loadConfig({ home: cli.home, env: process.env, flags: cli.flags, pluginNamespaces });
  if (cli.command === 'plugins') {
    process.stdout.write(formatPluginListing(listPlugins(loadPlugins(config.gateway.plugins, config.home), config)));
    return;
  }
  const gateway = await startGateway(config);
  const logger = new Logger('Gateway');
  logger.log(`node RPC listening on ${gateway.nodeRpcUrls.join(', ')} (home ${config.home})`);
  if (gateway.evmHttpUrl) logger.log(`EVM JSON-RPC listening on ${gateway.evmHttpUrl} and ${gateway.evmWsUrl}`);
  if (gateway.metricsUrl) logger.log(`metrics, /livez and /readyz on ${gateway.metricsUrl}`);
  let stopping = false;
  // SIGTERM/SIGINT: not ready at once, stop accepting, drain calls in flight, close. A second signal exits now.
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    logger.log(`${signal}: draining and shutting down`);
    await gateway.close();
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
