import { ConfigError } from '../../../src/config/config-error';

/** The one-line ConfigError that `load` throws. */
export function errorOf(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain('\n');
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}
