/** One upstream read shared by identical calls is abandoned only once every call waiting for it timed out. */
import { ReadWaiters } from '../../../src/backends/upstream/read-waiters';

const call = () => ({ expired: false });

it('is abandoned once every call that joined has timed out', () => {
  const [a, b] = [call(), call()];
  const waiters = new ReadWaiters(a);
  waiters.join(b);
  a.expired = true;
  expect(waiters.abandoned).toBe(false);
  b.expired = true;
  expect(waiters.abandoned).toBe(true);
});

it('is never abandoned while a call without a deadline waits', () => {
  const a = call();
  const waiters = new ReadWaiters(a);
  waiters.join(undefined);
  a.expired = true;
  expect(waiters.abandoned).toBe(false);
});

it('a call that had timed out before it joined keeps nothing waiting', () => {
  const [first, gone, live] = [call(), { expired: true }, call()];
  const waiters = new ReadWaiters(first);
  waiters.join(gone);
  waiters.join(live);
  first.expired = true;
  expect(waiters.abandoned).toBe(false);
  live.expired = true;
  expect(waiters.abandoned).toBe(true);
});
