import { DeadlineClock } from './deadline-clock';

/** Calls' deadlines, checked every 10 ms: a call is told it timed out at most that late. */
const callDeadlines = new DeadlineClock(10);

export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | undefined)?.then === 'function';
}

/**
 * A call's deadline as the gateway's own parts read it: `expired` turns true in the same moment the call
 * is answered as timed out and its signal fires. A flag read on a clock's tick costs a call nothing,
 * where a listener on its signal costs each upstream read a share of its CPU.
 */
export interface CallExpiry {
  readonly expired: boolean;
}

/**
 * What `run` gives, or `expired()` once `deadline` (epoch ms) passes: then the signal `run` got fires, with
 * a TimeoutError as AbortSignal.timeout() gives, and its expiry turns expired. A value when `run` answered
 * at once.
 */
export function withinDeadline<T>(deadline: number, run: (signal: AbortSignal, expiry: CallExpiry) => T | PromiseLike<T>, expired: () => T): T | Promise<T> {
  const left = deadline - Date.now();
  if (left <= 0) return expired();
  const abort = new AbortController();
  let settle: ((value: T) => void) | undefined;
  const watch = {
    deadline: performance.now() + left,
    done: false,
    expired: false,
    expire: () => {
      watch.expired = true;
      abort.abort(new DOMException('request timed out', 'TimeoutError'));
      settle?.(expired());
    },
  };
  const answer = run(abort.signal, watch);
  if (!isPromiseLike(answer)) return answer;
  return new Promise((resolve, reject) => {
    settle = resolve;
    callDeadlines.add(watch);
    answer.then(
      (value) => {
        watch.done = true;
        resolve(value);
      },
      (err: unknown) => {
        watch.done = true;
        reject(err);
      },
    );
  });
}
