/**
 * A configuration value the gateway cannot start with. The message is one line naming where the value
 * came from (a file under the home, `environment RPCGW_…` or `flag --…`), the key, the value and what
 * was expected; start-up prints it as is and exits with status 1.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
