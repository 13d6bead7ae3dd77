import type { ChildProcess } from 'node:child_process';

/**
 * Sends `signal` and waits for the child to exit; if it has not within `graceMs`, SIGKILLs it.
 * Resolves with whether it took the SIGKILL, so a caller for whom that is a failure (a gateway that
 * did not finish its graceful shutdown) can say so, and no caller is left waiting on a stuck child.
 */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs = 15_000): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(timer);
  return killed;
}

/** `stopChild`, failing when the child needed the SIGKILL. */
export async function stopChildGracefully(child: ChildProcess, what: string, signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
  if (await stopChild(child, signal, graceMs)) throw new Error(`${what} did not exit within ${graceMs} ms of ${signal} (killed)`);
}
