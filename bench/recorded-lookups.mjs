#!/usr/bin/env node
// Matching cost of recorded scenarios by size (issue 26: no linear scan per request), against dist/:
//   node --expose-gc bench/recorded-lookups.mjs
// 100,000 lookups, each of another rule, in recorded scenarios of 10 to 50,000 rules.
import { createClock } from '../dist/clock/clock.js';
import { createRandom } from '../dist/random/random.js';
import { createScenarioEngine } from '../dist/scenarios/engine.js';
import { createScenarioLoader } from '../dist/scenarios/scenario-file.js';
for (const n of [10, 1000, 10000, 50000]) {
  const engine = createScenarioEngine({ clock: createClock({ mode: 'manual' }), random: createRandom(1), loader: createScenarioLoader() });
  const rules = Array.from({ length: n }, (_, i) => ({ name: `r${i}`, match: { method: 'GET', path: `/v1/addresses/a-${i}`, query: {} }, effect: { respond: { status: 200, text: 'x' } }, recorded: {} }));
  engine.activate({ name: 'x', rules });
  global.gc?.();
  const t = performance.now();
  let hits = 0;
  for (let i = 0; i < 100000; i++) hits += engine.evaluateRequest({ method: 'GET', path: `/v1/addresses/a-${(i * 7919) % n}`, headers: {}, query: {} }, 'request').length;
  console.log(n, 'rules: 100,000 lookups', (performance.now() - t).toFixed(0), 'ms', hits);
}
