import { UnfinishedBytes } from '../../../src/rpc/unfinished-bytes';

describe('UnfinishedBytes', () => {
  it('counts per address and in all, refuses what would pass a budget (holding what it held), and gives everything back on release', () => {
    const budget = new UnfinishedBytes(100, 150);
    const a1 = budget.hold('a');
    const a2 = budget.hold('a');
    const b = budget.hold('b');
    expect(a1.set(60)).toBe(true);
    expect(a2.set(50)).toBe(false); // 110 for a
    expect(a2.set(40)).toBe(true); // a set replaces what it held
    expect(b.set(60)).toBe(false); // 160 in all
    expect([budget.heldBy('a'), budget.heldBy('b'), budget.held]).toEqual([100, 0, 100]);
    expect(b.set(50)).toBe(true);
    expect(a1.set(10)).toBe(true); // giving back is never refused
    expect([budget.heldBy('a'), budget.heldBy('b'), budget.held]).toEqual([50, 50, 100]);
    b.release();
    b.release();
    a1.release();
    expect([budget.heldBy('a'), budget.heldBy('b'), budget.held]).toEqual([40, 0, 40]);
    a2.release();
    expect(budget.held).toBe(0);
  });

  it('0 is no budget', () => {
    const budget = new UnfinishedBytes(0, 0);
    expect(budget.hold('a').set(1e12)).toBe(true);
  });
});
