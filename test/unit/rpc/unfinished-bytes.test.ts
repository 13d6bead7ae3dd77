import { UnfinishedBytes } from '../../../src/rpc/unfinished-bytes';

describe('UnfinishedBytes', () => {
  it('counts per address and in all, says when a budget is passed, and gives everything back on release', () => {
    const budget = new UnfinishedBytes(100, 150);
    const a1 = budget.hold('a');
    const a2 = budget.hold('a');
    const b = budget.hold('b');
    expect(a1.set(60)).toBe(true);
    expect(a2.set(50)).toBe(false); // 110 for a
    expect(a2.set(40)).toBe(true); // a set replaces what it held
    expect(b.set(60)).toBe(false); // 160 in all
    expect([budget.heldBy('a'), budget.heldBy('b'), budget.held]).toEqual([100, 60, 160]);
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
