/**
 * ed25519 keys as CometBFT keeps them: the validator's `priv_validator_key.json` (privval/file.go) and
 * the p2p `node_key.json` (p2p/key.go). A private key is the 64 bytes seed||pubkey, an address is the
 * first 20 bytes of sha256(pubkey), and a node id is that address in lower-case hex.
 */
import { createPrivateKey, createPublicKey, KeyObject, randomBytes, sign as edSign, verify as edVerify } from 'crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'fs';
import { dirname } from 'path';
import { sha256 } from './merkle';

export interface Ed25519Key {
  pubKey: Uint8Array;
  /** seed (32 bytes) || pubKey (32 bytes). */
  privKey: Uint8Array;
}

export interface ValidatorKey extends Ed25519Key {
  address: Uint8Array;
}

export interface NodeKey extends Ed25519Key {
  /** hex(address), lower-case. */
  id: string;
}

const PUB_KEY_TYPE = 'tendermint/PubKeyEd25519';
const PRIV_KEY_TYPE = 'tendermint/PrivKeyEd25519';

// DER prefixes that wrap a raw ed25519 seed (PKCS#8) or public key (SPKI) for Node's KeyObject.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function addressOf(pubKey: Uint8Array): Uint8Array {
  return sha256(pubKey).slice(0, 20);
}

export function nodeIdOf(pubKey: Uint8Array): string {
  return Buffer.from(addressOf(pubKey)).toString('hex');
}

function privateKeyObject(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

function publicKeyObject(pubKey: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, pubKey]), format: 'der', type: 'spki' });
}

/** The key pair for a 32-byte seed. */
export function keyFromSeed(seed: Uint8Array): Ed25519Key {
  if (seed.length !== 32) throw new Error(`ed25519 seed must be 32 bytes, got ${seed.length}`);
  const spki = createPublicKey(privateKeyObject(seed)).export({ format: 'der', type: 'spki' });
  const pubKey = new Uint8Array(spki.subarray(SPKI_PREFIX.length));
  const privKey = new Uint8Array(64);
  privKey.set(seed);
  privKey.set(pubKey, 32);
  return { pubKey, privKey };
}

export function generateValidatorKey(): ValidatorKey {
  const key = keyFromSeed(randomBytes(32));
  return { ...key, address: addressOf(key.pubKey) };
}

export function sign(key: Ed25519Key, message: Uint8Array): Uint8Array {
  return new Uint8Array(edSign(null, message, privateKeyObject(key.privKey.subarray(0, 32))));
}

export function verify(pubKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (pubKey.length !== 32 || signature.length !== 64) return false;
  try {
    return edVerify(null, message, publicKeyObject(pubKey), signature);
  } catch {
    return false;
  }
}

/** Reads `priv_validator_key.json`, or creates it (mode 0600) with a fresh key when it is missing. */
export function loadOrCreateValidatorKey(path: string): ValidatorKey {
  if (existsSync(path)) return parseValidatorKeyFile(readFileSync(path, 'utf8'), path);
  const key = generateValidatorKey();
  writeKeyFile(path, validatorKeyFile(key));
  return key;
}

/** Reads `node_key.json`, or creates it (mode 0600) with a fresh key when it is missing. */
export function loadOrCreateNodeKey(path: string): NodeKey {
  if (existsSync(path)) {
    const file = JSON.parse(readFileSync(path, 'utf8')) as { priv_key?: unknown };
    const key = decodePrivKey(file.priv_key, path);
    return { ...key, id: nodeIdOf(key.pubKey) };
  }
  const key = keyFromSeed(randomBytes(32));
  // CometBFT writes this file compact, unlike the validator key.
  writeKeyFile(path, JSON.stringify({ priv_key: { type: PRIV_KEY_TYPE, value: b64(key.privKey) } }));
  return { ...key, id: nodeIdOf(key.pubKey) };
}

/** The file text CometBFT writes (libs/json MarshalIndent with two spaces, no trailing newline). */
export function validatorKeyFile(key: ValidatorKey): string {
  return JSON.stringify(
    {
      address: Buffer.from(key.address).toString('hex').toUpperCase(),
      pub_key: { type: PUB_KEY_TYPE, value: b64(key.pubKey) },
      priv_key: { type: PRIV_KEY_TYPE, value: b64(key.privKey) },
    },
    null,
    2,
  );
}

export function parseValidatorKeyFile(text: string, source = 'validator key'): ValidatorKey {
  const file = JSON.parse(text) as { address?: unknown; pub_key?: { type?: unknown; value?: unknown }; priv_key?: unknown };
  const key = decodePrivKey(file.priv_key, source);
  if (file.pub_key?.type !== PUB_KEY_TYPE || typeof file.pub_key.value !== 'string') {
    throw new Error(`${source}: pub_key must be a ${PUB_KEY_TYPE}`);
  }
  if (!Buffer.from(file.pub_key.value, 'base64').equals(key.pubKey)) {
    throw new Error(`${source}: pub_key does not match priv_key`);
  }
  const address = addressOf(key.pubKey);
  if (typeof file.address !== 'string' || !Buffer.from(file.address, 'hex').equals(address)) {
    throw new Error(`${source}: address does not match pub_key`);
  }
  return { ...key, address };
}

/** A `{"type":"tendermint/PrivKeyEd25519","value":b64}` whose second half is the seed's public key. */
function decodePrivKey(raw: unknown, source: string): Ed25519Key {
  const { type, value } = (raw ?? {}) as { type?: unknown; value?: unknown };
  if (type !== PRIV_KEY_TYPE || typeof value !== 'string') {
    throw new Error(`${source}: priv_key must be a ${PRIV_KEY_TYPE}`);
  }
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length !== 64) throw new Error(`${source}: priv_key must be 64 bytes, got ${bytes.length}`);
  const key = keyFromSeed(bytes.subarray(0, 32));
  if (!bytes.subarray(32).equals(key.pubKey)) throw new Error(`${source}: priv_key halves do not match`);
  return key;
}

function writeKeyFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}
