import { Injectable } from '@nestjs/common';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { GatewayConfigService } from '../../../config/gateway-config.service';
import { ApplicationError, LimitError } from '../../../rpc/errors';

/** The folder under the home where every profile goes. */
export const PROFILES_DIR = 'profiles';
/** Longest name most file systems take. */
const MAX_NAME_BYTES = 255;

/** A profile name that is not a plain file name. */
export class BadProfileNameError extends ApplicationError {
  constructor(name: string) {
    super(`invalid profile file name ${JSON.stringify(name)}: want a file name, written under $HOME/${PROFILES_DIR}/ (no path separators, no "..")`);
  }
}

/** A file name: not empty, no separator (either platform's), no NUL, no `..`, not `.`. */
export function isProfileName(name: string): boolean {
  return name !== '' && name !== '.' && !/[/\\\0]/.test(name) && !name.includes('..') && Buffer.byteLength(name) <= MAX_NAME_BYTES;
}

/**
 * Where the debug runtime methods write: `<home>/profiles/<name>`, created as needed. A name is a file
 * name, never a path; an existing file is never replaced (the file is created with O_EXCL, which also
 * refuses a symbolic link planted under the name). One file may take `[json-rpc] profile-max-size`
 * bytes and the folder `profile-dir-max-size`: a write that would cross either is refused (a stream is
 * cut off and its file removed). Writes run one at a time.
 */
@Injectable()
export class ProfileFolder {
  private writing = false;

  constructor(private readonly config: GatewayConfigService) {}

  get dir(): string {
    return join(this.config.home, PROFILES_DIR);
  }

  /** Checks a name before work that will end in writing it (a CPU profile's start): refused now if it cannot be written later. */
  async check(name: string): Promise<void> {
    const path = this.pathOf(name);
    if (await exists(path)) throw fileExists(name);
  }

  /** Writes `text` as a new file. */
  async writeText(name: string, text: string): Promise<null> {
    const path = this.pathOf(name);
    const bytes = Buffer.byteLength(text);
    return this.exclusive(async () => {
      this.checkSize(bytes, await this.room());
      const file = await this.create(name, path);
      try {
        await file.writeFile(text);
      } finally {
        await file.close();
      }
      return null;
    });
  }

  /** Writes what `produce` streams as a new file, cut off (and the file removed) past the budget. */
  async writeStream(name: string, produce: () => Readable): Promise<null> {
    const path = this.pathOf(name);
    return this.exclusive(async () => {
      const room = await this.room();
      this.checkSize(0, room);
      const file = await this.create(name, path);
      let written = 0;
      const meter = new Transform({
        transform: (chunk: Buffer, _encoding, done) => {
          written += chunk.length;
          done(written > room.max ? this.sizeError(room) : null, chunk);
        },
      });
      try {
        await pipeline(produce(), meter, file.createWriteStream());
      } catch (err) {
        await unlink(path).catch(() => undefined);
        throw err instanceof ApplicationError || err instanceof LimitError ? err : new ApplicationError(`write ${PROFILES_DIR}/${name}: ${(err as Error).message}`);
      } finally {
        // The stream closes the file when it ends; this closes it when the stream never took it.
        await file.close().catch(() => undefined);
      }
      return null;
    });
  }

  private pathOf(name: string): string {
    if (!isProfileName(name)) throw new BadProfileNameError(name);
    return join(this.dir, name);
  }

  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.writing) throw new ApplicationError('another profile is being written; try again when it is done');
    this.writing = true;
    try {
      return await work();
    } finally {
      this.writing = false;
    }
  }

  private async create(name: string, path: string) {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    try {
      return await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw fileExists(name);
      throw new ApplicationError(`open ${PROFILES_DIR}/${name}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }

  /** What one more file may take: the per-file cap, or what the folder has left if less. */
  private async room(): Promise<{ max: number; reason: 'profile-max-size' | 'profile-dir-max-size'; used: number }> {
    const fileMax = this.config.jsonRpc['profile-max-size'];
    const dirMax = this.config.jsonRpc['profile-dir-max-size'];
    const used = await folderBytes(this.dir);
    const left = Math.max(0, dirMax - used);
    return left < fileMax ? { max: left, reason: 'profile-dir-max-size', used } : { max: fileMax, reason: 'profile-max-size', used };
  }

  private checkSize(bytes: number, room: { max: number; reason: string; used: number }): void {
    if (room.max <= 0 || bytes > room.max) throw this.sizeError(room);
  }

  private sizeError(room: { max: number; reason: string; used: number }): LimitError {
    const cap = this.config.jsonRpc[room.reason as 'profile-max-size' | 'profile-dir-max-size'];
    const text =
      room.reason === 'profile-max-size'
        ? `profile too large: over [json-rpc] profile-max-size (${cap} bytes)`
        : `profiles folder full: ${room.used} of [json-rpc] profile-dir-max-size ${cap} bytes used; remove old profiles from $HOME/${PROFILES_DIR}`;
    return new LimitError(room.reason, text, -32000);
  }
}

function fileExists(name: string): ApplicationError {
  return new ApplicationError(`open ${PROFILES_DIR}/${name}: file exists (profiles are never overwritten)`);
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Bytes of the regular files in the folder (0 when it does not exist yet). */
async function folderBytes(dir: string): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let total = 0;
  for (const name of names) {
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info?.isFile()) total += info.size;
  }
  return total;
}
