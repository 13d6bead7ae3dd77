'use strict';
/** Runs every benchmark in turn (build first: `npm run bench` does). */
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

for (const name of ['node-rpc.js', 'node-http.js', 'evm.js', 'upstream-proxy.js', 'one-at-a-time.js', 'post-write-work.js', 'floors.js', 'footprint.js', 'cache-admission.js', 'large-answers.js', 'upstream-layers.js', 'event-loop-freeze.js', 'metrics-overhead.js', 'tracing-overhead.js', 'ws-fanout.js', 'queue.js', 'instructions.js']) {
  console.log(`\n== ${name}`);
  execFileSync(process.execPath, [join(__dirname, name)], { stdio: 'inherit' });
}
