import { batchRuns } from '../../../src/rpc/batch-runs';

const runs = (members: string) => [...batchRuns([...members], (m) => m === 'r')].map(([s, e]) => members.slice(s, e));

it('groups consecutive reads and leaves every write alone, in order', () => {
  expect(runs('rrwrrrwwr')).toEqual(['rr', 'w', 'rrr', 'w', 'w', 'r']);
  expect(runs('www')).toEqual(['w', 'w', 'w']);
  expect(runs('rrr')).toEqual(['rrr']);
  expect(runs('')).toEqual([]);
});
