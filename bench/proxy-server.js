'use strict';
/**
 * The floors of any Node.js gateway: node:http in, undici's Pool out (as the gateway's upstream client).
 *
 *   bytes   the POST body and the answer copied through as bytes, nothing parsed
 *   parse   the least a JSON-RPC proxy does: the request parsed and sent under an id of the proxy's own,
 *           the answer parsed and written again under the client's id (no validation, no routing, no
 *           cache, no limits)
 *
 * `busy` (`<µs>@before` or `<µs>@after`) adds that much CPU work (a busy loop) to every call, before or
 * after the request is written upstream (bench/post-write-work.js). Run as its own process by
 * bench/bare-proxy.js, inside a gateway's process by bench/in-process-proxy.js.
 */
const http = require('node:http');
const { Pool } = require('undici');

/** A node:http server (not yet listening) proxying to `upstream` (an origin). */
function proxyServer(upstream, mode = 'bytes', busy = '0@after') {
  const [busyMicros, busyWhen] = [Number(busy.split('@')[0]), busy.split('@')[1]];
  if (!(busyMicros >= 0) || (busyWhen !== 'before' && busyWhen !== 'after')) throw new Error(`busy ${busy}: expected <µs>@before or <µs>@after`);
  /** Spends `busyMicros` of CPU. */
  function work() {
    const until = performance.now() + busyMicros / 1000;
    while (performance.now() < until);
  }
  const pool = new Pool(upstream, { connections: 128 });
  const headers = { 'content-type': 'application/json' };
  let nextId = 1;

  /** The upstream request for a client's body, and the client's answer for the upstream's. */
  const FORMS = {
    bytes: (body) => ({ out: body, back: (answer) => answer }),
    parse(body) {
      const call = JSON.parse(body.toString('utf8'));
      const out = `{"jsonrpc":"2.0","id":${nextId++},"method":${JSON.stringify(call.method)},"params":${JSON.stringify(call.params)}}`;
      const back = (answer) => {
        const { result, error } = JSON.parse(answer.toString('utf8'));
        const member = error === undefined ? `"result":${JSON.stringify(result)}` : `"error":${JSON.stringify(error)}`;
        return Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},${member}}\n`);
      };
      return { out, back };
    },
  };
  const form = FORMS[mode];
  if (form === undefined) throw new Error(`mode ${mode}: expected bytes or parse`);

  return http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let exchange;
      try {
        exchange = form(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      } catch {
        return res.writeHead(400).end();
      }
      const { out, back } = exchange;
      const answer = [];
      let status = 502;
      if (busyMicros > 0 && busyWhen === 'before') work();
      pool.dispatch(
        { path: req.url, method: req.method, headers, body: out },
        {
          onRequestStart() {},
          onResponseStart(_controller, statusCode) {
            status = statusCode;
          },
          onResponseData(_controller, chunk) {
            answer.push(chunk);
          },
          onResponseEnd() {
            let body;
            try {
              body = back(answer.length === 1 ? answer[0] : Buffer.concat(answer));
            } catch {
              return res.writeHead(502).end();
            }
            res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
            res.end(body);
          },
          onResponseError() {
            res.writeHead(502).end();
          },
        },
      );
      if (busyMicros > 0 && busyWhen === 'after') work();
    });
  });
}

module.exports = { proxyServer };
