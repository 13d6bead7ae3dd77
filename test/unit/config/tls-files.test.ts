/** The TLS keys of config.toml and app.toml: both paths or neither, readable, a key of the certificate. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/load-config';
import { readTlsFiles } from '../../../src/config/tls-files';
import { writeTestCertificate } from '../../support/test-certificate';
import { errorOf } from './error-of';
import { tempHome } from './temp-home';

const RPC_TLS = '[rpc]\ntls_cert_file = "cert.pem"\ntls_key_file = "key.pem"\n';
const EVM_TLS = '[tls]\ncertificate-path = "cert.pem"\nkey-path = "key.pem"\n';

function homeWithCertificate(files: Record<string, string>): string {
  const home = tempHome(files);
  writeTestCertificate(join(home, 'config'));
  return home;
}

it('reads both files, relative to the config dir, for each interface', () => {
  const config = loadConfig({ home: homeWithCertificate({ 'config.toml': RPC_TLS, 'app.toml': EVM_TLS }) });
  expect(readTlsFiles(config, 'node')?.cert.toString()).toContain('BEGIN CERTIFICATE');
  expect(readTlsFiles(config, 'evm')?.key.toString()).toContain('PRIVATE KEY');
});

it('no paths: plain HTTP', () => {
  const config = loadConfig({ home: tempHome() });
  expect(readTlsFiles(config, 'node')).toBeUndefined();
  expect(readTlsFiles(config, 'evm')).toBeUndefined();
});

it.each([
  ['config.toml', '[rpc]\ntls_cert_file = "cert.pem"\n', 'config/config.toml: [rpc] tls_key_file = "": expected a path too, as tls_cert_file is set (both or neither)'],
  ['app.toml', '[tls]\nkey-path = "key.pem"\n', 'config/app.toml: [tls] certificate-path = "": expected a path too, as key-path is set (both or neither)'],
  ['app.toml', '[tls]\ncertificate-path = "cert.crt"\nkey-path = "key.pem"\n', 'config/app.toml: [tls] certificate-path = "cert.crt": expected "" or the path of a .pem file'],
])('%s %j: %s', (file, text, message) => {
  expect(errorOf(() => loadConfig({ home: homeWithCertificate({ [file]: text }) })).message).toBe(message);
});

it('a file that cannot be read', () => {
  const home = tempHome({ 'config.toml': RPC_TLS });
  expect(errorOf(() => loadConfig({ home })).message).toBe(
    `config/config.toml: [rpc] tls_cert_file = "cert.pem": cannot read ${join(home, 'config', 'cert.pem')}: ENOENT`,
  );
});

it('a key that is not the certificate’s', () => {
  const home = homeWithCertificate({ 'app.toml': EVM_TLS });
  writeFileSync(join(home, 'config', 'key.pem'), '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
  expect(errorOf(() => loadConfig({ home })).message).toMatch(/^config\/app\.toml: \[tls\] key-path = "key\.pem": not a PEM key of the certificate certificate-path: /);
});
