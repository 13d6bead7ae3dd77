'use strict';
/**
 * Preloaded (`node --require bench/phase-probe.js`) into a process that serves HTTP and asks an upstream
 * through undici: the gateway and the bare proxies alike, none of which knows it is there. From Node's
 * and undici's diagnostics channels it times, for every client request that made one upstream request,
 * the three stretches of a hop:
 *
 *   before    the request's headers parsed (http.server.request.start) → its upstream request written
 *             (undici:request:bodySent): reading the body, and everything the process does before it asks
 *   upstream  → the upstream's answer read whole (undici:request:trailers): the node's time and the
 *             sockets', the same for every process in front of the same node
 *   after     → the client's answer handed to the socket (http.server.response.finish)
 *
 * by the local port the client came in on (a gateway serves several interfaces). Requests the process
 * makes on its own (health checks) are not paired with a client's and are left out. On SIGUSR2 it writes
 * `phases-<pid>.json` in PHASE_PROBE_DIR, the median of each stretch by port, and starts again.
 */
const dc = require('node:diagnostics_channel');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const DIR = process.env.PHASE_PROBE_DIR;
if (!DIR) throw new Error('phase-probe: PHASE_PROBE_DIR is not set');
const STRETCHES = ['before', 'upstream', 'after'];
/** The client request being served (one at a time) and the upstream request it made. */
let current;
let samples = new Map();

dc.subscribe('http.server.request.start', ({ request }) => {
  current = { port: request.socket.localPort, start: performance.now(), upstream: undefined, sent: 0, read: 0 };
});
dc.subscribe('undici:request:bodySent', ({ request }) => {
  if (current === undefined || current.upstream !== undefined) return;
  current.upstream = request;
  current.sent = performance.now();
});
dc.subscribe('undici:request:trailers', ({ request }) => {
  if (current !== undefined && current.upstream === request) current.read = performance.now();
});
dc.subscribe('http.server.response.finish', () => {
  const c = current;
  current = undefined;
  if (c === undefined || c.read === 0) return;
  let byPort = samples.get(c.port);
  if (byPort === undefined) samples.set(c.port, (byPort = STRETCHES.map(() => [])));
  const finished = performance.now();
  byPort[0].push(c.sent - c.start);
  byPort[1].push(c.read - c.sent);
  byPort[2].push(finished - c.read);
});

process.on('SIGUSR2', () => {
  const medians = {};
  for (const [port, byPort] of samples) {
    medians[port] = { count: byPort[0].length };
    STRETCHES.forEach((name, i) => {
      // Not bench/lib.js's median: the probe loads nothing more into the process it times.
      const sorted = Float64Array.from(byPort[i]).sort();
      medians[port][name] = sorted[sorted.length >> 1] * 1000;
    });
  }
  samples = new Map();
  writeFileSync(join(DIR, `phases-${process.pid}.json`), JSON.stringify(medians));
});
