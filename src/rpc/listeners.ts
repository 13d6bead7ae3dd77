import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { TlsFiles } from '../config/tls-files';
import { limitConnections } from './http/connection-limit';
import { bindError, closeServer, listen } from './http/listen';
import { oneRequestAtATime } from './http/one-request-at-a-time';
import { budgetPartialHeaders } from './http/partial-headers';
import type { RpcInterface } from './registration';
import { UnfinishedBytes } from './unfinished-bytes';
import type { JsonRpcWsGateway } from './ws-gateway';
import { WsGateways } from './ws-gateways';

/** One HTTP listener of an interface: where it listens, how it answers, and its limits. */
export interface Listener {
  readonly rpc: RpcInterface;
  /** `tcp://host:port`, `host:port` or `unix:///path`. */
  readonly address: string;
  /** Where the address is set, for a bind error: `config/config.toml: [rpc] laddr`. */
  readonly setting: string;
  /** Certificate and key: HTTPS (and WSS) instead of HTTP on the same address. */
  readonly tls?: TlsFiles;
  readonly scheme: 'http' | 'ws';
  readonly maxHeaderBytes?: number;
  /** Most simultaneous connections (HTTP and WebSocket); 0 = unlimited. */
  readonly maxConnections: number;
  readonly onRefused?: () => void;
  /**
   * Node's server timeouts (ms; 0 = none); absent = Node's defaults. `headers`: until the request's
   * headers are in; `request`: until the whole request is; `keepAlive`: an idle connection's life.
   */
  readonly timeouts?: { readonly keepAlive?: number; readonly request?: number; readonly headers?: number };
  handle(req: IncomingMessage, res: ServerResponse): void;
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** The gateway whose WebSockets it serves (its upgrades), closed with the others on shutdown. */
  readonly websockets?: JsonRpcWsGateway;
}

interface Started {
  readonly listener: Listener;
  readonly server: Server;
  readonly url: string;
  readonly sockets: () => number;
  readonly stopBudget: () => void;
}

/**
 * The one owner of every listener of both interfaces: connects the WebSocket gateways (Nest's socket
 * module) and starts the listeners, counts their connections and the headers they are receiving, stops accepting on shutdown, lets
 * keep-alive connections go once idle, and closes every WebSocket the same way (1001, then cut after a
 * grace period).
 */
@Injectable()
export class Listeners {
  private readonly listeners: Listener[] = [];
  private started: Started[] = [];
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly gateways: WsGateways;

  constructor(
    moduleRef: ModuleRef,
    private readonly unfinished: UnfinishedBytes,
  ) {
    this.gateways = new WsGateways(moduleRef);
  }

  add(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Connects the gateways, then starts every listener added; resolves once all listen. */
  async start(): Promise<void> {
    await this.gateways.connect();
    for (const listener of this.listeners) {
      const handle = oneRequestAtATime((req: IncomingMessage, res: ServerResponse) => listener.handle(req, res));
      const server: Server = listener.tls ? createTlsServer({ ...serverOptions(listener), ...listener.tls }, handle) : createServer(serverOptions(listener), handle);
      if (listener.timeouts?.keepAlive !== undefined) server.keepAliveTimeout = listener.timeouts.keepAlive;
      if (listener.timeouts?.request !== undefined) server.requestTimeout = listener.timeouts.request;
      if (listener.timeouts?.headers !== undefined) server.headersTimeout = listener.timeouts.headers;
      const upgrade = listener.upgrade?.bind(listener);
      if (upgrade) server.on('upgrade', upgrade);
      const sockets = limitConnections([server], listener.maxConnections, listener.onRefused);
      const stopBudget = budgetPartialHeaders(server, this.unfinished);
      const scheme = listener.tls ? (`${listener.scheme}s` as const) : listener.scheme;
      const url = await listen(server, listener.address, scheme).catch((error: unknown) => {
        stopBudget();
        throw bindError(listener.setting, listener.address, error);
      });
      this.started.push({ listener, server, url, sockets, stopBudget });
    }
  }

  /** The bound URLs of an interface's listeners of a scheme, in the order they were added. */
  urls(rpc: RpcInterface, scheme: 'http' | 'ws'): string[] {
    return this.started.filter((s) => s.listener.rpc === rpc && s.listener.scheme === scheme).map((s) => s.url);
  }

  /** Open connections of an interface: plain HTTP sockets and WebSockets. */
  connections(rpc: RpcInterface): { http: number; ws: number } {
    let sockets = 0;
    let ws = 0;
    const endpoints = new Set<JsonRpcWsGateway>();
    for (const s of this.started) {
      if (s.listener.rpc !== rpc) continue;
      sockets += s.sockets();
      if (s.listener.websockets) endpoints.add(s.listener.websockets);
    }
    for (const endpoint of endpoints) ws += endpoint.connections;
    return { http: Math.max(0, sockets - ws), ws };
  }

  /** No new connections; keep-alive connections go as soon as they are idle, so that a drain ends. */
  stopAccepting(): void {
    for (const s of this.started) if (s.server.listening) s.server.close();
    this.idleTimer ??= setInterval(() => this.started.forEach((s) => s.server.closeIdleConnections()), 10);
  }

  /** Closes every WebSocket (1001, cut after `graceMs`) and every remaining connection. */
  async close(graceMs: number): Promise<void> {
    this.stopAccepting();
    clearInterval(this.idleTimer);
    const endpoints = new Set(this.started.flatMap((s) => (s.listener.websockets ? [s.listener.websockets] : [])));
    await Promise.all([...endpoints].map((e) => e.closeAll(graceMs)));
    await Promise.all(this.started.map((s) => closeServer(s.server)));
    this.started.forEach((s) => s.stopBudget());
    await this.gateways.close();
    this.started = [];
  }
}

/**
 * node:http options of a listener: its header size, and how often Node looks for connections past their
 * header or request timeout (every 30 s by default, which would let a slow client hold a connection for
 * that long past a short timeout): a quarter of the shortest one.
 */
function serverOptions(listener: Listener): ServerOptions {
  const options: ServerOptions = listener.maxHeaderBytes ? { maxHeaderSize: listener.maxHeaderBytes } : {};
  const set = [listener.timeouts?.request, listener.timeouts?.headers].filter((t): t is number => t !== undefined && t > 0);
  if (set.length > 0) options.connectionsCheckingInterval = Math.max(50, Math.min(30_000, Math.floor(Math.min(...set) / 4)));
  return options;
}
