'use strict';
/**
 * Preloaded (`--require`) into the bare Node.js proxy by bench/footprint.js: gives it the gateway's size
 * without any of the gateway's work. Every module under dist/ is loaded (the gateway's code, and the
 * libraries it loads, compiled and kept as in a gateway process), and FOOTPRINT_WEIGHT_MB of small
 * objects are kept alive on the heap, as a gateway keeps its configuration, registries, caches and
 * pools. Nothing of it runs per request.
 */
const { readdirSync } = require('node:fs');
const { join } = require('node:path');

const DIST = join(__dirname, '..', 'dist');
const MB = Number(process.env.FOOTPRINT_WEIGHT_MB);
if (!(MB >= 0)) throw new Error(`FOOTPRINT_WEIGHT_MB ${process.env.FOOTPRINT_WEIGHT_MB}: expected a number of MB, at least 0`);

for (const entry of readdirSync(DIST, { recursive: true, withFileTypes: true })) {
  // main.js starts a gateway; the rest only defines one.
  if (!entry.isFile() || !entry.name.endsWith('.js') || (entry.parentPath === DIST && entry.name === 'main.js')) continue;
  try {
    require(join(entry.parentPath, entry.name));
  } catch {
    // A module that needs what only the gateway's start sets up (a plugin's host) is left out.
  }
}

// About 128 bytes each: an object of three fields, its string and its one-element array.
const kept = [];
for (let i = 0; i < (MB * 1024 * 1024) / 128; i++) kept.push({ n: i, text: `kept-${i}`, list: [i] });
globalThis.footprintWeight = kept;
