'use strict';
/**
 * The bare Node.js proxy as a process of its own (bench/proxy-server.js: bytes copied through, or the
 * request and answer parsed).
 *
 * Usage: node bench/bare-proxy.js <port> <upstream origin> [bytes|parse] [<µs>@before|<µs>@after];
 * listens on 127.0.0.1. Started by the benchmarks through bench/lib.js startBareProxy.
 */
const { proxyServer } = require('./proxy-server');

const [port, upstream, mode, busy] = process.argv.slice(2);
proxyServer(upstream, mode, busy).listen(Number(port), '127.0.0.1');
