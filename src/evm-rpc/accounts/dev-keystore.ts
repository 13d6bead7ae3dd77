import { Inject, Injectable } from '@nestjs/common';
import { Wallet, hexlify } from 'ethers';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BACKEND_SERVICES, type BackendServices } from '../../backends/backend-services';
import { ApplicationError } from '../../rpc/errors';

interface Account {
  readonly wallet: Wallet;
  readonly salt: Buffer;
  readonly passwordHash: Buffer;
  /** Epoch ms until which the key signs without a password: 0 = locked, Infinity = until exit. */
  unlockedUntil: number;
}

/** Unlocks without a duration last five minutes, as in go-ethereum. */
const DEFAULT_UNLOCK_SECONDS = 300;
const MAX_UNLOCK_SECONDS = Math.floor(Number.MAX_SAFE_INTEGER / 1000);
/**
 * Accounts personal_newAccount and personal_importRawKey may add, all callers together: the keystore is
 * shared by every client and lives in memory, so a caller must not grow it without bound.
 */
export const MAX_ADDED_ACCOUNTS = 100;

/**
 * An in-memory keystore with go-ethereum's keystore semantics (passwords, timed unlocks and its error
 * texts). It starts with the backend's funded dev accounts, unlocked with the empty password, so
 * eth_sendTransaction works out of the box on a devnet.
 */
@Injectable()
export class DevKeystore {
  private readonly accounts = new Map<string, Account>();
  private added = 0;
  private seeded: Promise<void> | undefined;

  constructor(@Inject(BACKEND_SERVICES) private readonly backend: BackendServices) {}

  async addresses(): Promise<string[]> {
    await this.ready();
    return [...this.accounts.keys()];
  }

  async create(password: string): Promise<string> {
    await this.ready();
    this.checkRoom();
    return this.addNew(new Wallet(Wallet.createRandom().privateKey), password);
  }

  /** personal_importRawKey: hex without 0x, as crypto.HexToECDSA reads it. */
  async importKey(hexKey: string, password: string): Promise<string> {
    await this.ready();
    const wallet = new Wallet('0x' + privateKeyDigits(hexKey));
    if (this.accounts.has(wallet.address.toLowerCase())) throw new ApplicationError('account already exists');
    this.checkRoom();
    return this.addNew(wallet, password);
  }

  /** Unlocks for `seconds` (undefined = 300, 0 = until exit). */
  async unlock(address: string, password: string, seconds: number | undefined): Promise<true> {
    if (seconds !== undefined && seconds > MAX_UNLOCK_SECONDS) throw new ApplicationError('unlock duration too large');
    const account = await this.withPassword(address, password);
    const duration = seconds ?? DEFAULT_UNLOCK_SECONDS;
    account.unlockedUntil = duration === 0 ? Infinity : Date.now() + duration * 1000;
    return true;
  }

  async lock(address: string): Promise<true> {
    await this.ready();
    const account = this.accounts.get(address);
    if (account) account.unlockedUntil = 0;
    return true;
  }

  async isUnlocked(address: string): Promise<boolean> {
    await this.ready();
    return (this.accounts.get(address)?.unlockedUntil ?? 0) > Date.now();
  }

  /** The key of an unlocked account (eth_sign, eth_sendTransaction, …). */
  async unlockedWallet(address: string): Promise<Wallet> {
    await this.ready();
    const account = this.accounts.get(address);
    if (!account) throw new ApplicationError('unknown account');
    if (account.unlockedUntil <= Date.now()) throw new ApplicationError('authentication needed: password or unlock');
    return account.wallet;
  }

  /** The key, given its password (personal_sign, personal_sendTransaction). */
  async walletWithPassword(address: string, password: string): Promise<Wallet> {
    return (await this.withPassword(address, password)).wallet;
  }

  private async withPassword(address: string, password: string): Promise<Account> {
    await this.ready();
    const account = this.accounts.get(address);
    if (!account) throw new ApplicationError('no key for given address or file');
    if (!timingSafeEqual(hashPassword(account.salt, password), account.passwordHash)) {
      throw new ApplicationError('could not decrypt key with given password');
    }
    return account;
  }

  private checkRoom(): void {
    if (this.added >= MAX_ADDED_ACCOUNTS) throw new ApplicationError(`too many accounts: at most ${MAX_ADDED_ACCOUNTS} can be created or imported`);
  }

  /** A caller's account: locked, and counted against MAX_ADDED_ACCOUNTS. */
  private addNew(wallet: Wallet, password: string): string {
    this.added++;
    return this.add(wallet, password, 0);
  }

  private add(wallet: Wallet, password: string, unlockedUntil: number): string {
    const salt = randomBytes(16);
    const address = wallet.address.toLowerCase();
    this.accounts.set(address, { wallet, salt, passwordHash: hashPassword(salt, password), unlockedUntil });
    return address;
  }

  private ready(): Promise<void> {
    this.seeded ??= this.seed().catch((err: unknown) => {
      this.seeded = undefined;
      throw err;
    });
    return this.seeded;
  }

  private async seed(): Promise<void> {
    for (const key of this.backend.devAccountKeys()) {
      const wallet = new Wallet(hexlify(key));
      if (!this.accounts.has(wallet.address.toLowerCase())) this.add(wallet, '', Infinity);
    }
  }
}

function hashPassword(salt: Buffer, password: string): Buffer {
  return createHash('sha256').update(salt).update(password, 'utf8').digest();
}

/** crypto.HexToECDSA's checks and texts. */
function privateKeyDigits(hexKey: string): string {
  const bad = [...hexKey].find((c) => !/[0-9a-fA-F]/.test(c));
  if (bad !== undefined) throw new ApplicationError(`invalid hex character '${bad}' in private key`);
  if (hexKey.length % 2 !== 0) throw new ApplicationError('invalid hex data for private key');
  if (hexKey.length !== 64) throw new ApplicationError('invalid length, need 256 bits');
  const d = BigInt('0x' + hexKey);
  if (d === 0n) throw new ApplicationError('invalid private key, zero or negative');
  if (d >= 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n) throw new ApplicationError('invalid private key, >=N');
  return hexKey.toLowerCase();
}
