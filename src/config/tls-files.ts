/**
 * The certificate and key of a listener's TLS: `[rpc] tls_cert_file`/`tls_key_file` (config.toml, as
 * CometBFT serves HTTPS and WSS on laddr) or `[tls] certificate-path`/`key-path` (app.toml, the EVM
 * JSON-RPC). Relative paths are under `$HOME/config`, as CometBFT reads them.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { ConfigError } from './config-error';
import { fileLabel } from './config-files';
import type { AppConfig } from './config.types';

export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
}

type Interface = 'node' | 'evm';

const KEYS = {
  node: { file: 'config.toml', table: 'rpc', cert: 'tls_cert_file', key: 'tls_key_file' },
  evm: { file: 'app.toml', table: 'tls', cert: 'certificate-path', key: 'key-path' },
} as const;

/**
 * The PEM files of an interface's listeners, or undefined when neither path is set (plain HTTP). One
 * path without the other, a file that cannot be read, or a key that does not match the certificate
 * throws a one-line ConfigError naming the key.
 */
export function readTlsFiles(config: AppConfig, rpc: Interface): TlsFiles | undefined {
  const keys = KEYS[rpc];
  const values: Record<string, string> =
    rpc === 'node' ? { tls_cert_file: config.rpc.tls_cert_file, tls_key_file: config.rpc.tls_key_file } : { ...config.tls };
  const certPath = values[keys.cert];
  const keyPath = values[keys.key];
  if (certPath === '' && keyPath === '') return undefined;
  const where = (key: string) => `${fileLabel(keys.file)}: [${keys.table}] ${key} = ${JSON.stringify(values[key])}`;
  if (certPath === '' || keyPath === '') {
    const [missing, set] = certPath === '' ? [keys.cert, keys.key] : [keys.key, keys.cert];
    throw new ConfigError(`${where(missing)}: expected a path too, as ${set} is set (both or neither)`);
  }
  const read = (key: string): Buffer => {
    const path = isAbsolute(values[key]) ? values[key] : join(config.home, 'config', values[key]);
    try {
      return readFileSync(path);
    } catch (error) {
      throw new ConfigError(`${where(key)}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  };
  const files = { cert: read(keys.cert), key: read(keys.key) };
  try {
    createSecureContext(files);
  } catch (error) {
    throw new ConfigError(`${where(keys.key)}: not a PEM key of the certificate ${keys.cert}: ${(error as Error).message}`);
  }
  return files;
}
