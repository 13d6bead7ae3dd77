/**
 * The embedded devnet's response cache, one per interface: the answers of every method whose definition
 * has a cache rule (the devnet's, a plugin's, the gateway's computed ones), kept in memory
 * (`ResponseCache`, bounded by `[cache] max_bytes`) under the call's method and canonical params, as
 * upstream mode keeps computed answers. The devnet knows its head at once: a `latest` answer belongs to
 * the chain as it was read (its height, and a follower's sync state, which `status` shows) and is dropped
 * as soon as either moves (a follower's head moves block by block as it replays); an immutable one is
 * kept until evicted, unless its rule's `keep` refuses the answer or it names a height the chain had not
 * reached when the call began. Identical calls in flight run once. Errors are never kept. Nothing in the
 * devnet rewinds or resets a chain it runs (a follower replays its leader's blocks, never replaces one),
 * so nothing kept is ever cleared.
 */
import type { Devnet } from '../../devnet/devnet';
import type { Json } from '../../rpc/json';
import type { CacheRule } from '../../rpc/method';
import { resultJson } from '../../rpc/result-json';
import { ResponseCache } from '../response-cache';

/** What the cache reads of the devnet: its latest height and whether it is catching up (a follower). */
export type DevnetHead = Pick<Devnet, 'latestHeight' | 'catchingUp'>;

/** The chain as one call saw it. */
interface View {
  readonly height: bigint;
  /** Bumped each time the height or the sync state changes: the "head" that latest answers belong to. */
  readonly epoch: bigint;
}

export class DevnetCache {
  readonly memory: ResponseCache;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private view: View = { height: -1n, epoch: 0n };
  private catchingUp = false;

  constructor(
    maxBytes: number,
    private readonly chain: DevnetHead,
  ) {
    this.memory = new ResponseCache(maxBytes);
  }

  /**
   * The answer to the call `key`: kept in memory (as it is, not a promise), or the identical call's in
   * flight, or `run`'s, which is kept when `rule` allows. `height` is the height the call names, if any.
   */
  read(key: string, rule: CacheRule, height: bigint | undefined, run: () => unknown): unknown {
    const at = this.now();
    const hit = this.memory.get(key, at.epoch);
    if (hit !== undefined) return hit;
    const running = this.inFlight.get(key);
    if (running !== undefined) return running;
    // A run that throws at once fails its callers as one that rejects does.
    const answer = (async () => run())()
      .then((result) => {
        this.keep(key, rule, height, at, result);
        return result;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, answer);
    return answer;
  }

  private keep(key: string, rule: CacheRule, height: bigint | undefined, at: View, result: unknown): void {
    if (result === undefined) return;
    const value = result as Json;
    const settled = height === undefined || height <= at.height;
    // A latest answer lives until the chain moves (no time limit: the devnet tells at once when it does).
    const head = this.now().epoch === at.epoch ? at.epoch : undefined;
    this.memory.keep(key, rule, value, resultJson(value).length, settled, head, Number.POSITIVE_INFINITY);
  }

  /** The chain now: its height, and a new epoch whenever the height or the sync state changed. */
  private now(): View {
    const height = this.chain.latestHeight;
    const catchingUp = this.chain.catchingUp;
    if (height !== this.view.height || catchingUp !== this.catchingUp) {
      this.view = { height, epoch: this.view.epoch + 1n };
      this.catchingUp = catchingUp;
    }
    return this.view;
  }
}
