/**
 * A listener that cannot bind stops start-up with one line naming the file, the key and the address
 * (no stack trace), exit status 1: a port in use, an address no interface has, a host that does not resolve.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { runGatewayCli } from '../support/gateway-cli';

jest.setTimeout(180_000);

let busy: Server;
let busyPort: number;

beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
});

const start = (flags: string[]) => runGatewayCli(['start', '--rpc.laddr', 'tcp://127.0.0.1:0', '--json-rpc.enable', 'false', '--devnet.ephemeral', ...flags]);

it('[rpc] laddr on a port in use', async () => {
  const run = await start(['--rpc.laddr', `tcp://127.0.0.1:${busyPort}`]);
  expect(run.code).toBe(1);
  expect(run.stderr).toBe(`config/config.toml: [rpc] laddr = "tcp://127.0.0.1:${busyPort}": cannot listen: the address is already in use\n`);
});

it('[json-rpc] address on a host that does not resolve', async () => {
  const run = await start(['--json-rpc.enable', 'true', '--json-rpc.address', 'no-such-host.invalid:0', '--json-rpc.ws-address', '127.0.0.1:0']);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/^config\/app\.toml: \[json-rpc\] address = "no-such-host\.invalid:0": cannot listen: the host name does not resolve[^\n]*\n$/);
});

it('[json-rpc] ws-address on an address no interface has', async () => {
  const run = await start(['--json-rpc.enable', 'true', '--json-rpc.address', '127.0.0.1:0', '--json-rpc.ws-address', '192.0.2.1:0']);
  expect(run.code).toBe(1);
  expect(run.stderr).toBe('config/app.toml: [json-rpc] ws-address = "192.0.2.1:0": cannot listen: no interface of this host has that address\n');
});

it('[instrumentation] prometheus_listen_addr on a port in use', async () => {
  const run = await start(['--instrumentation.prometheus', '--set', `instrumentation.prometheus_listen_addr=127.0.0.1:${busyPort}`]);
  expect(run.code).toBe(1);
  expect(run.stderr).toBe(`config/config.toml: [instrumentation] prometheus_listen_addr = "127.0.0.1:${busyPort}": cannot listen: the address is already in use\n`);
});

(process.getuid?.() === 0 ? it.skip : it)('[rpc] laddr on a privileged port without privileges', async () => {
  const run = await start(['--rpc.laddr', 'tcp://127.0.0.1:81']);
  expect(run.code).toBe(1);
  expect(run.stderr).toBe('config/config.toml: [rpc] laddr = "tcp://127.0.0.1:81": cannot listen: permission denied (a port below 1024 needs privileges)\n');
});
