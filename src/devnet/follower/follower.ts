/**
 * A full node beside the devnet's validator: it learns the leader's height (LeaderHeads), fetches the
 * blocks it lacks a few ahead (BlockFetcher) and replays them one by one (BlockApplier). A leader that
 * cannot be reached only delays it; a block that does not replay to the leader's hashes, or that
 * fails to apply, stops it for good, as a node halts.
 */
import { Logger } from '@nestjs/common';
import type { ChainState } from '../producer/chain-state';
import { nextHeight } from '../producer/chain-transitions';
import { DivergenceError, type BlockApplier } from './block-applier';
import type { BlockFetcher, LeaderBlock } from './block-fetcher';
import type { LeaderConnection } from './leader-connection';
import { LeaderHeads } from './leader-heads';

/** Blocks fetched ahead of the one being applied. */
const FETCH_AHEAD = 4;

export interface FollowerParts {
  leader: LeaderConnection;
  fetcher: BlockFetcher;
  applier: BlockApplier;
  /** The state after the last block applied. */
  state: () => ChainState;
}

export class Follower {
  private readonly logger = new Logger('DevnetFollower');
  private readonly heads: LeaderHeads;
  private readonly fetches = new Map<bigint, Promise<LeaderBlock>>();
  private highest: bigint;
  private paused = false;
  private running = false;
  private syncing: Promise<void> | undefined;
  private again = false;
  private leaderError: string | undefined;
  private halt: string | undefined;

  constructor(
    private readonly parts: FollowerParts,
    /** The leader's height when the follower was set up. */
    leaderHeight: bigint,
    pollIntervalMs: number,
  ) {
    this.highest = leaderHeight;
    this.heads = new LeaderHeads(parts.leader, pollIntervalMs, (h) => this.heard(h), (err) => this.unreachable(err));
  }

  /** The highest height the leader has reported. */
  get leaderHeight(): bigint {
    return this.highest;
  }

  /** More than a block behind the leader, or stopped. */
  get catchingUp(): boolean {
    return this.halt !== undefined || this.highest > this.parts.state().lastBlockHeight + 1n;
  }

  /** Why following stopped for good; undefined while it goes on. */
  get haltReason(): string | undefined {
    return this.halt;
  }

  start(): void {
    this.running = true;
    this.heads.start();
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.heads.stop();
    await this.syncing;
    this.fetches.clear();
    this.parts.leader.close();
  }

  /** Stops applying blocks (the follower falls behind) until resume(). */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.wake();
  }

  private heard(height: bigint): void {
    if (this.leaderError !== undefined) {
      this.logger.log(`the leader ${this.parts.leader.url} answers again`);
      this.leaderError = undefined;
    }
    if (height > this.highest) this.highest = height;
    this.wake();
  }

  private unreachable(err: Error): void {
    if (this.leaderError === undefined) this.logger.warn(`the leader ${this.parts.leader.url} does not answer: ${err.message}`);
    this.leaderError = err.message;
  }

  /** Runs the sync loop, or has the running one look again once it is done. */
  private wake(): void {
    if (this.syncing !== undefined) {
      this.again = true;
      return;
    }
    this.syncing = this.sync().finally(() => {
      this.syncing = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async sync(): Promise<void> {
    while (this.running && !this.paused && this.halt === undefined) {
      const height = nextHeight(this.parts.state());
      if (height > this.highest) return;
      let block: LeaderBlock;
      try {
        block = await this.fetch(height);
      } catch (err) {
        // The next head heard or status polled tries again.
        this.fetches.clear();
        this.unreachable(err as Error);
        return;
      }
      try {
        await this.parts.applier.apply(block);
      } catch (err) {
        this.halt = err instanceof DivergenceError ? err.message : `block ${height} failed: ${String(err)}`;
        this.fetches.clear();
        this.logger.error(`${this.halt}; following stopped`);
        return;
      }
    }
  }

  /** The block at `height`, with the next few requested meanwhile. */
  private fetch(height: bigint): Promise<LeaderBlock> {
    for (let h = height; h < height + BigInt(FETCH_AHEAD) && h <= this.highest; h++) {
      if (!this.fetches.has(h)) {
        const pending = this.parts.fetcher.fetch(h);
        // Awaited when its turn comes; a failure before then must not go unhandled.
        pending.catch(() => undefined);
        this.fetches.set(h, pending);
      }
    }
    const pending = this.fetches.get(height) as Promise<LeaderBlock>;
    this.fetches.delete(height);
    return pending;
  }
}
