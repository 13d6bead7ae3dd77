'use strict';
/**
 * The floor of any Node.js gateway: node:http in, undici's Pool out (as the gateway's upstream client),
 * the POST body and the answer copied through as bytes, nothing parsed. Usage: node bench/bare-proxy.js
 * <port> <upstream origin>; listens on 127.0.0.1. Started by bench/upstream-proxy.js.
 */
const http = require('node:http');
const { Pool } = require('undici');

const [port, upstream] = process.argv.slice(2);
const pool = new Pool(upstream, { connections: 128 });
const headers = { 'content-type': 'application/json' };

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      const answer = [];
      let status = 502;
      pool.dispatch(
        { path: req.url, method: req.method, headers, body },
        {
          onRequestStart() {},
          onResponseStart(_controller, statusCode) {
            status = statusCode;
          },
          onResponseData(_controller, chunk) {
            answer.push(chunk);
          },
          onResponseEnd() {
            const out = answer.length === 1 ? answer[0] : Buffer.concat(answer);
            res.writeHead(status, { 'content-type': 'application/json', 'content-length': out.length });
            res.end(out);
          },
          onResponseError() {
            res.writeHead(502).end();
          },
        },
      );
    });
  })
  .listen(Number(port), '127.0.0.1');
