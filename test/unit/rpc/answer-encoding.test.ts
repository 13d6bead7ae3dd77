import { encodingFor } from '../../../src/rpc/http/answer-compression';

describe('encodingFor (Accept-Encoding)', () => {
  it.each([
    ['gzip', 'gzip'],
    ['gzip, deflate', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, GZIP;q=1.0', 'gzip'],
    ['br;q=1, gzip;q=0.5', 'br'],
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    ['gzip;q=0.5, *', 'br'],
    ['identity, *;q=0.1', 'br'],
    ['gzip, br;q=0', 'gzip'],
    ['gzip;q=0', undefined],
    ['gzip;q=0.000, br;q=0, *', undefined],
    ['*;q=0', undefined],
    ['deflate', undefined],
    ['identity', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %s', (header, expected) => {
    expect(encodingFor(header)).toBe(expected);
  });
});
