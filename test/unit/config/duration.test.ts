import { formatDuration, parseDuration } from '../../../src/config/duration';

describe('parseDuration', () => {
  it.each([
    ['10s', 10_000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['2m0s', 120_000],
    ['1h', 3_600_000],
    ['1.5s', 1_500],
    ['1.1s', 1_100],
    ['.5m', 30_000],
    ['0', 0],
    ['0s', 0],
    ['-5s', -5_000],
    ['+2s', 2_000],
    ['250us', 1],
    ['250µs', 1],
    ['1ns', 1],
    ['1500000ns', 2],
  ])('%s = %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '10', '5 s', 's', '1d', '1s5', 'ten seconds', '--1s'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [10_000, '10s'],
    [90_000, '1m30s'],
    [120_000, '2m0s'],
    [3_600_000, '1h0m0s'],
  ])('%d ms = %s, and back', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});
