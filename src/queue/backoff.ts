/** The queue's retry schedule: `[queue] retry_backoff`, doubled at each attempt up to `max_retry_backoff`, with jitter. */
export interface BackoffSettings {
  readonly retry_backoff: number;
  readonly max_retry_backoff: number;
}

/** Milliseconds before the retry that follows failed attempt number `attempt` (1 = the first attempt). */
export function retryDelay(settings: BackoffSettings, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(settings.max_retry_backoff, settings.retry_backoff * 2 ** Math.min(30, Math.max(0, attempt - 1)));
  // ±25 %, so that jobs that failed together do not all come back at the same instant.
  return Math.max(1, Math.round(base * (0.75 + random() * 0.5)));
}
