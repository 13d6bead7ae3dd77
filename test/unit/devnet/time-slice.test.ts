/** A scan's slices: the event loop gets a turn once a slice is used up, and the scan stops once its signal fires. */
import { SLICE_MS, TimeSlice } from '../../../src/devnet/indexer/time-slice';

const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

it('stops a scan at its next slice once the signal fires', async () => {
  const abort = new AbortController();
  const slice = new TimeSlice(abort.signal);
  await slice.pace();
  abort.abort(new Error('request timed out'));
  spin(SLICE_MS + 1);
  await expect(slice.pace()).rejects.toThrow('request timed out');
});

it('lets other work run between slices', async () => {
  const slice = new TimeSlice();
  let ran = false;
  setImmediate(() => (ran = true));
  spin(SLICE_MS + 1);
  await slice.pace();
  expect(ran).toBe(true);
});
