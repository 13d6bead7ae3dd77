import { ReadinessService } from '../../../src/metrics/readiness.service';

describe('ReadinessService', () => {
  it('is ready when every condition was reported and every check passes', async () => {
    const readiness = new ReadinessService();
    readiness.require('listeners');
    expect(await readiness.state()).toEqual({ ready: false, checks: { config: 'ok', listeners: 'not ready' } });
    readiness.report('listeners', true);
    readiness.addCheck('backend', async () => true);
    expect(await readiness.state()).toEqual({ ready: true, checks: { config: 'ok', listeners: 'ok', backend: 'ok' } });
  });

  it('an upstream pool reports its own condition', async () => {
    const readiness = new ReadinessService();
    readiness.require('upstreams');
    readiness.report('upstreams', true);
    expect((await readiness.state()).ready).toBe(true);
    readiness.report('upstreams', false);
    expect(await readiness.state()).toEqual({ ready: false, checks: { config: 'ok', upstreams: 'not ready' } });
  });

  it('a failing, throwing or hanging check makes it not ready', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const readiness = new ReadinessService();
      readiness.addCheck('no', () => false);
      readiness.addCheck('throws', () => {
        throw new Error('backend stopped');
      });
      readiness.addCheck('hangs', () => new Promise<boolean>(() => undefined));
      const state = readiness.state();
      await jest.advanceTimersByTimeAsync(2000);
      expect(await state).toEqual({
        ready: false,
        checks: { config: 'ok', no: 'not ready', throws: 'failing: backend stopped', hangs: 'timed out' },
      });
    } finally {
      jest.useRealTimers();
    }
  });

  it('is never ready again once shutdown began', async () => {
    const readiness = new ReadinessService();
    readiness.beginShutdown();
    expect(readiness.isShuttingDown).toBe(true);
    expect(await readiness.state()).toEqual({ ready: false, checks: { shutdown: 'shutting down', config: 'ok' } });
  });

  it('drains: waits for calls in flight, up to a timeout', async () => {
    const readiness = new ReadinessService();
    let a = 2;
    let b = 1;
    readiness.trackInFlight(() => a);
    readiness.trackInFlight(() => b);
    expect(readiness.inFlight()).toBe(3);
    setTimeout(() => (a = 0), 30);
    setTimeout(() => (b = 0), 60);
    const started = Date.now();
    expect(await readiness.drain(5000)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    b = 1;
    expect(await readiness.drain(50)).toBe(false);
  });
});
