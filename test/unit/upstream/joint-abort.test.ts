/** One upstream read shared by identical calls is aborted only once every caller gave up. */
import { JointAbort } from '../../../src/backends/upstream/joint-abort';

it('fires once every caller with a signal gave up, with the last reason', () => {
  const [a, b] = [new AbortController(), new AbortController()];
  const joint = new JointAbort(a.signal);
  joint.join(b.signal);
  a.abort(new Error('a'));
  expect(joint.signal.aborted).toBe(false);
  b.abort(new Error('b'));
  expect(joint.signal.aborted).toBe(true);
  expect((joint.signal.reason as Error).message).toBe('b');
});

it('never fires while a caller without a signal waits', () => {
  const a = new AbortController();
  const joint = new JointAbort(a.signal);
  joint.join(undefined);
  a.abort();
  expect(joint.signal.aborted).toBe(false);
});

it('ignores a caller that had given up before it joined', () => {
  const [first, gone, live] = [new AbortController(), new AbortController(), new AbortController()];
  const joint = new JointAbort(first.signal);
  gone.abort();
  joint.join(gone.signal);
  joint.join(live.signal);
  first.abort();
  expect(joint.signal.aborted).toBe(false);
  live.abort();
  expect(joint.signal.aborted).toBe(true);
});
