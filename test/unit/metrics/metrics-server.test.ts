import { Logger } from '@nestjs/common';
import { request } from 'node:http';
import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import type { InstrumentationConfig } from '../../../src/config/config.types';
import { MetricsServer } from '../../../src/metrics/metrics-server';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { ReadinessService } from '../../../src/metrics/readiness.service';

function configOf(instrumentation: Partial<InstrumentationConfig>): GatewayConfigService {
  return {
    instrumentation: { prometheus: true, prometheus_listen_addr: '127.0.0.1:0', max_open_connections: 0, namespace: 'rpcgw', ...instrumentation },
  } as GatewayConfigService;
}

/** One request on a fresh connection. */
function fetchOnce(url: string, method = 'GET'): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, headers: { Connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(() => Logger.overrideLogger(false));

describe('MetricsServer', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function start(instrumentation: Partial<InstrumentationConfig> = {}) {
    const config = configOf(instrumentation);
    const metrics = new MetricsService(config);
    const readiness = new ReadinessService();
    server = new MetricsServer(config, metrics, readiness);
    return { metrics, readiness, server };
  }

  it('serves /metrics, /livez and /readyz on an ephemeral port', async () => {
    const { readiness, server } = start();
    const url = await server.listen();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).toBe(url);

    const metrics = await fetchOnce(`${url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(metrics.body).toContain('# TYPE rpcgw_requests_total counter');
    expect(metrics.body).toContain('# TYPE process_cpu_user_seconds_total counter');

    expect(await fetchOnce(`${url}/livez`)).toMatchObject({ status: 200, body: 'ok\n' });
    expect(await fetchOnce(`${url}/readyz`)).toMatchObject({ status: 200, type: 'application/json' });
    expect(JSON.parse((await fetchOnce(`${url}/readyz`)).body)).toEqual({ status: 'ready', checks: { config: 'ok' } });

    readiness.require('listeners');
    const notReady = await fetchOnce(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(JSON.parse(notReady.body)).toEqual({ status: 'not ready', checks: { config: 'ok', listeners: 'not ready' } });
    readiness.report('listeners', true);
    readiness.beginShutdown();
    expect((await fetchOnce(`${url}/readyz`)).status).toBe(503);
    expect((await fetchOnce(`${url}/livez`)).status).toBe(200);

    expect(await fetchOnce(`${url}/nothing`)).toMatchObject({ status: 404 });
    expect(await fetchOnce(`${url}/metrics`, 'POST')).toMatchObject({ status: 405 });
    expect(await fetchOnce(`${url}/livez`, 'HEAD')).toMatchObject({ status: 200, body: '' });
  });

  it('is off with prometheus = false', async () => {
    const { server } = start({ prometheus: false });
    expect(await server.listen()).toBeUndefined();
    expect(server.url).toBeUndefined();
  });

  it('applies [instrumentation] max_open_connections', async () => {
    const { server } = start({ max_open_connections: 1 });
    const url = (await server.listen())!;
    // Hold one connection open, then ask on a second one.
    const held = await new Promise<import('node:http').ClientRequest>((resolve) => {
      const req = request(`${url}/livez`, { agent: false, headers: { Connection: 'keep-alive' } });
      req.on('response', (res) => {
        res.resume();
        resolve(req);
      });
      req.end();
    });
    const refused = await fetchOnce(`${url}/metrics`);
    expect(refused.status).toBe(503);
    held.destroy();
  });

  it('a taken port stops start-up', async () => {
    const { server: first } = start();
    const url = (await first.listen())!;
    const port = new URL(url).port;
    const config = configOf({ prometheus_listen_addr: `127.0.0.1:${port}` });
    const second = new MetricsServer(config, new MetricsService(config), new ReadinessService());
    await expect(second.listen()).rejects.toThrow(`prometheus_listen_addr = "127.0.0.1:${port}": cannot listen: the address is already in use`);
  });
});
