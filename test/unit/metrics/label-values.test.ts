import { parseQuery } from '../../../src/events/query';
import { errorOutcome, nodeSubscriptionKind, refusalOf } from '../../../src/metrics/label-values';
import { ApplicationError, InternalError, LimitError, MethodNotFoundError } from '../../../src/rpc/errors';

describe('label values stay bounded', () => {
  it('an error outcome is its code within the reserved range or 3, else "error"', () => {
    expect(errorOutcome(-32601)).toBe('-32601');
    expect(errorOutcome(-32768)).toBe('-32768');
    expect(errorOutcome(-32000)).toBe('-32000');
    expect(errorOutcome(3)).toBe('3');
    expect(errorOutcome(-31999)).toBe('error');
    expect(errorOutcome(-32769)).toBe('error');
    expect(errorOutcome(42)).toBe('error');
    expect(errorOutcome(1.5)).toBe('error');
  });

  it('refusals: guard reasons and limits; unknown methods and other errors are none', () => {
    expect(refusalOf(new MethodNotFoundError('unsafe'))).toEqual({ reason: 'unsafe' });
    expect(refusalOf(new MethodNotFoundError('websocket-only'))).toEqual({ reason: 'websocket_only' });
    expect(refusalOf(new MethodNotFoundError('namespace-disabled'))).toEqual({ reason: 'namespace_disabled' });
    expect(refusalOf(new MethodNotFoundError('unknown'))).toBeUndefined();
    expect(refusalOf(new LimitError('batch-request-limit', 'batch too large'))).toEqual({ reason: 'limit', limit: 'batch-request-limit' });
    expect(refusalOf(new InternalError())).toBeUndefined();
    expect(refusalOf(new ApplicationError('nope'))).toBeUndefined();
  });

  it("a node subscription's kind is its tm.event, 'other' for an unknown type, 'all' without one", () => {
    expect(nodeSubscriptionKind(parseQuery("tm.event = 'NewBlock'"))).toBe('NewBlock');
    expect(nodeSubscriptionKind(parseQuery("tm.event='Tx' AND app.key='name'"))).toBe('Tx');
    expect(nodeSubscriptionKind(parseQuery("tm.event = 'SomethingMadeUp'"))).toBe('other');
    expect(nodeSubscriptionKind(parseQuery("app.key = 'name'"))).toBe('all');
    expect(nodeSubscriptionKind(parseQuery('tm.event EXISTS'))).toBe('all');
  });
});
