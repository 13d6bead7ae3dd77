import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes a self-signed certificate for 127.0.0.1 and localhost (and its key) into `dir` with the openssl
 * CLI, as `cert.pem` and `key.pem`; returns the certificate, the CA a client must trust.
 */
export function writeTestCertificate(dir: string): Buffer {
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', join(dir, 'key.pem'), '-out', cert,
  ], { stdio: 'ignore' });
  return readFileSync(cert);
}
