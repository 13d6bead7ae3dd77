import { DeadlineClock } from './deadline-clock';

/** Calls' deadlines, checked every 10 ms: a call is told it timed out at most that late. */
const callDeadlines = new DeadlineClock(10);

export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | undefined)?.then === 'function';
}

/**
 * What `run` gives, or `expired()` once `deadline` (epoch ms) passes: then the signal `run` got fires, with
 * a TimeoutError as AbortSignal.timeout() gives. A value when `run` answered at once.
 */
export function withinDeadline<T>(deadline: number, run: (signal: AbortSignal) => T | PromiseLike<T>, expired: () => T): T | Promise<T> {
  const left = deadline - Date.now();
  if (left <= 0) return expired();
  const abort = new AbortController();
  const answer = run(abort.signal);
  if (!isPromiseLike(answer)) return answer;
  return new Promise((resolve, reject) => {
    const watch = {
      deadline: performance.now() + left,
      done: false,
      expire: () => {
        abort.abort(new DOMException('request timed out', 'TimeoutError'));
        resolve(expired());
      },
    };
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
