/**
 * Load balancers in front of gateway replicas, as a deployment has them: a per-request round robin
 * (nginx where it is installed, else a small Node HTTP one) and a per-connection TCP round robin (a
 * Kubernetes Service). Both skip a target that refuses connections (a replica that died), and pass
 * WebSocket upgrades through.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './anvil';
import { stopChild } from './child-stop';

export interface Balancer {
  /** `http://127.0.0.1:port` */
  readonly url: string;
  /** What balances: `nginx`, `node-http` or `tcp`. */
  readonly kind: string;
  close(): Promise<void>;
}

/** host:port of `http://…` or `ws://…` URLs. */
const hostPorts = (targets: readonly string[]) => targets.map((t) => new URL(t)).map((u) => ({ host: u.hostname, port: Number(u.port) }));

/** `nginx` when it is on PATH. */
export function nginxBinary(): string | undefined {
  return spawnSync('nginx', ['-v']).status === 0 ? 'nginx' : undefined;
}

/** A per-request round robin: nginx when installed, else the Node one. */
export function startRequestBalancer(targets: readonly string[]): Promise<Balancer> {
  const nginx = nginxBinary();
  return nginx ? startNginx(nginx, targets) : startHttpRoundRobin(targets);
}

/**
 * nginx as an HTTP round robin (`upstream` with its defaults: each request to the next server, a new
 * upstream connection per request, a refused connection tried on the next server), forwarding
 * X-Forwarded-For and WebSocket upgrades.
 */
export async function startNginx(binary: string, targets: readonly string[]): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), 'rpcgw-nginx-'));
  const port = await freePort();
  const servers = hostPorts(targets).map((t) => `    server ${t.host}:${t.port} max_fails=0;`).join('\n');
  const conf = `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  upstream replicas {
${servers}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_next_upstream error;
      proxy_read_timeout 3600s;
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn(binary, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await untilListening(port, child, () => stderr);
  } catch (err) {
    await stopChild(child, 'SIGQUIT', 5_000);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    kind: 'nginx',
    async close() {
      await stopChild(child, 'SIGQUIT', 5_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Node HTTP round robin: each request (its body read first) goes to the next target that accepts a connection. */
export async function startHttpRoundRobin(targets: readonly string[]): Promise<Balancer> {
  const upstreams = hostPorts(targets);
  let next = 0;
  const sockets = new Set<Socket>();
  const forward = (req: IncomingMessage, body: Buffer, tries: number, res: ServerResponse): void => {
    const target = upstreams[next++ % upstreams.length];
    const out = request({ ...target, path: req.url, method: req.method, headers: req.headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' && tries + 1 < upstreams.length) forward(req, body, tries + 1, res);
      else res.destroy();
    });
    out.end(body);
  };
  const server: HttpServer = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, Buffer.concat(chunks), 0, res));
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    pipeTo(upstreams, () => next++, client, Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), head]), sockets);
  });
  return listenOn(server, 'node-http', sockets);
}

/** A per-connection TCP round robin: each connection goes to the next target that accepts it. */
export async function startTcpRoundRobin(targets: readonly string[]): Promise<Balancer> {
  const upstreams = hostPorts(targets);
  let next = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    client.pause();
    pipeTo(upstreams, () => next++, client, Buffer.alloc(0), sockets);
  });
  return listenOn(server, 'tcp', sockets);
}

/** Connects `client` to the next target that accepts (trying each once), sends `first`, then pipes both ways. */
function pipeTo(upstreams: readonly { host: string; port: number }[], turn: () => number, client: Socket, first: Buffer, sockets: Set<Socket>): void {
  sockets.add(client);
  client.on('close', () => sockets.delete(client));
  client.on('error', () => client.destroy());
  const attempt = (tries: number) => {
    const upstream = connect(upstreams[turn() % upstreams.length]);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      sockets.add(upstream);
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      client.on('close', () => upstream.destroy());
      upstream.on('error', () => upstream.destroy());
      if (first.length > 0) upstream.write(first);
      client.pipe(upstream).pipe(client);
      client.resume();
    });
    upstream.once('error', () => {
      if (!connected && tries + 1 < upstreams.length) attempt(tries + 1);
      else client.destroy();
    });
  };
  attempt(0);
}

async function listenOn(server: Server | HttpServer, kind: string, sockets: Set<Socket>): Promise<Balancer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    kind,
    async close() {
      const closed = new Promise((r) => server.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

async function untilListening(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
