'use strict';
/**
 * Preloaded (`--require`) into a gateway by bench/footprint.js: the bare Node.js proxy
 * (bench/proxy-server.js) inside the gateway's own process, on a port of its own, so that it runs with
 * everything the gateway's process holds and does besides its calls (its modules and heap, its timers,
 * health checks and upstream WebSockets, the object shapes Node's own code has seen there) and none of
 * the gateway's request path. IN_PROCESS_PROXY: `<port> <upstream origin> [bytes|parse]`; unset, nothing
 * starts.
 */
const { proxyServer } = require('./proxy-server');

const setting = process.env.IN_PROCESS_PROXY;
if (setting) {
  const [port, upstream, mode] = setting.split(' ');
  proxyServer(upstream, mode).listen(Number(port), '127.0.0.1');
}
