/**
 * A redis-server of a test's own on a free port, nothing persisted (`--save '' --appendonly no`), that
 * the test stops (SIGKILL: its connections reset at once) and starts again on the same port, empty.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './anvil';
import { stopChild } from './child-stop';

export class RedisServer {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.restart();
    return server;
  }

  /** Starts it on its port; resolves once it takes connections. */
  async restart(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await this.answers())) {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not start`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGKILL; resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) await stopChild(child, 'SIGKILL');
  }

  private answers(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect(this.port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
  }
}
