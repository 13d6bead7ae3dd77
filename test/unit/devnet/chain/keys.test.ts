import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { addressOf, generateValidatorKey, loadOrCreateNodeKey, loadOrCreateValidatorKey, nodeIdOf, parseValidatorKeyFile, sign, validatorKeyFile, verify } from '../../../../src/devnet/chain/keys';
import { toHex, utf8, validatorKey } from './fixtures';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chain-keys-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('priv_validator_key.json', () => {
  test('is written in CometBFT format with mode 0600 and read back as the same key', () => {
    const path = join(dir, 'config', 'priv_validator_key.json');
    const created = loadOrCreateValidatorKey(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    const text = readFileSync(path, 'utf8');
    const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
    expect(text).toBe(
      [
        '{',
        `  "address": "${toHex(created.address).toUpperCase()}",`,
        '  "pub_key": {',
        '    "type": "tendermint/PubKeyEd25519",',
        `    "value": "${b64(created.pubKey)}"`,
        '  },',
        '  "priv_key": {',
        '    "type": "tendermint/PrivKeyEd25519",',
        `    "value": "${b64(created.privKey)}"`,
        '  }',
        '}',
      ].join('\n'),
    );
    expect(created.privKey.subarray(32)).toEqual(created.pubKey);
    expect(created.address).toEqual(addressOf(created.pubKey));

    const loaded = loadOrCreateValidatorKey(path);
    expect(loaded).toEqual(created);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(verify(created.pubKey, utf8('msg'), sign(loaded, utf8('msg')))).toBe(true);
  });

  test('a file written by CometBFT (compact or indented, lower-case address) loads', () => {
    const key = validatorKey();
    const compact = JSON.stringify(JSON.parse(validatorKeyFile(key)));
    expect(parseValidatorKeyFile(compact)).toEqual(key);
    const path = join(dir, 'priv_validator_key.json');
    writeFileSync(path, validatorKeyFile(key).replace(toHex(key.address).toUpperCase(), toHex(key.address)));
    expect(loadOrCreateValidatorKey(path)).toEqual(key);
  });

  test('an inconsistent file is rejected', () => {
    const key = validatorKey();
    const other = generateValidatorKey();
    const file = JSON.parse(validatorKeyFile(key));
    const tamper = (f: (o: any) => void) => {
      const o = JSON.parse(JSON.stringify(file));
      f(o);
      return JSON.stringify(o);
    };
    expect(() => parseValidatorKeyFile(tamper((o) => (o.address = toHex(other.address))))).toThrow(/address/);
    expect(() => parseValidatorKeyFile(tamper((o) => (o.pub_key.value = Buffer.from(other.pubKey).toString('base64'))))).toThrow(/pub_key/);
    expect(() => parseValidatorKeyFile(tamper((o) => (o.priv_key.type = 'tendermint/PrivKeySecp256k1')))).toThrow(/priv_key/);
    expect(() => parseValidatorKeyFile(tamper((o) => (o.priv_key.value = Buffer.alloc(32).toString('base64'))))).toThrow(/64 bytes/);
    const mixed = Buffer.concat([key.privKey.subarray(0, 32), other.pubKey]).toString('base64');
    expect(() => parseValidatorKeyFile(tamper((o) => (o.priv_key.value = mixed)))).toThrow(/halves/);
  });
});

describe('node_key.json', () => {
  test('is written compact with mode 0600; the id is the lower-case hex address', () => {
    const path = join(dir, 'node_key.json');
    const created = loadOrCreateNodeKey(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(
      `{"priv_key":{"type":"tendermint/PrivKeyEd25519","value":"${Buffer.from(created.privKey).toString('base64')}"}}`,
    );
    expect(created.id).toMatch(/^[0-9a-f]{40}$/);
    expect(created.id).toBe(toHex(addressOf(created.pubKey)));
    expect(nodeIdOf(created.pubKey)).toBe(created.id);
    expect(loadOrCreateNodeKey(path)).toEqual(created);
  });
});
