/**
 * How a batch runs: its members in order, consecutive reads together. A member that is not a read
 * waits for everything before it and runs alone, so writes keep the client's order while a batch of
 * reads costs its slowest member rather than their sum (and in upstream mode spreads over the pool).
 * Yields [start, end) index ranges; each range runs concurrently, the ranges one after the other.
 */
export function* batchRuns<T>(members: readonly T[], isRead: (member: T) => boolean): Generator<readonly [number, number]> {
  let start = 0;
  while (start < members.length) {
    let end = start;
    while (end < members.length && isRead(members[end])) end++;
    if (end === start) end++;
    yield [start, end];
    start = end;
  }
}
