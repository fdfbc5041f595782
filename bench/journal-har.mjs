#!/usr/bin/env node
// GET /__admin/journal.har of a full journal, and the activation of a large recorded scenario
// (issue 26 budgets), against dist/ (npm run build first):
//   node bench/journal-har.mjs [entries=10000]
// Fills a mock's journal with N exchanges of ~1.5 KiB bodies, streams journal.har over HTTP
// (read and counted, never kept) while sampling the process's RSS, then converts the HAR into a
// recorded scenario and times its activation and a lookup.
import { createServer } from 'node:http';
import { createRuntime } from '../dist/runtime/runtime.js';
import { createApp } from '../dist/app/create-app.js';
import { createLogger } from '../dist/logging/logger.js';
import { harToScenario } from '../dist/recording/har-to-scenario.js';

const entries = Number(process.argv[2] ?? 10_000);
const runtime = createRuntime({ seed: 1, clock: { mode: 'manual' }, journalSize: entries }, createLogger({ level: 'silent', format: 'json' }));
const { app } = createApp(runtime);
const server = createServer(app);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const body = (i) => JSON.stringify({ id: `a-${i}`, name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE', note: 'x'.repeat(1200) });
for (let i = 0; i < entries; i++) {
  const responseBody = body(i);
  // A failed status: the journal keeps every failed exchange (successful ones are sampled).
  runtime.journal.record(
    { requestId: `r${i}`, at: new Date(1767225600000 + i).toISOString(), method: 'GET', path: `/v1/addresses/a-${i}`, status: 409, outcome: 'completed', latencyMs: 1, operationId: 'getAddress', validation: 'valid' },
    { requestHeaders: ['host', '127.0.0.1', 'authorization', 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl'], responseHeaders: { 'content-type': 'application/json' }, responseBody, responseType: 'application/json' },
  );
}
// The control plane loads on first use (Express, admin.yaml's validators): not part of the measure.
await (await fetch(`${base}/__admin/journal.har?limit=1`)).arrayBuffer();
global.gc?.();
const mib = (n) => (n / 1024 / 1024).toFixed(1);
const before = process.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
const started = performance.now();
const res = await fetch(`${base}/__admin/journal.har`);
let bytes = 0;
let text = '';
const keep = process.argv.includes('--convert');
for await (const chunk of res.body) {
  bytes += chunk.length;
  if (keep) text += Buffer.from(chunk).toString('utf8');
}
clearInterval(sampler);
console.log(`journal.har: ${entries} entries, ${mib(bytes)} MiB streamed in ${(performance.now() - started).toFixed(0)} ms; RSS ${mib(before)} MiB before, peak ${mib(peak)} MiB (+${mib(peak - before)} MiB)`);

if (keep) {
  const converted = harToScenario(JSON.parse(text), { name: 'bench' });
  // The same lookups against a recording of 10 rules: the cost per request should not differ.
  runtime.scenarios.activate({ ...converted.scenario, name: 'bench-small', rules: converted.scenario.rules.slice(0, 10) });
  global.gc?.();
  const small = performance.now();
  for (let i = 0; i < 1000; i++) runtime.scenarios.evaluateRequest({ method: 'GET', path: `/v1/addresses/a-${i % 10}`, headers: {}, query: {} }, 'request');
  console.log(`recorded scenario of 10 rules: 1,000 lookups ${(performance.now() - small).toFixed(1)} ms`);
  runtime.scenarios.deactivate('bench-small');
  const json = JSON.stringify(converted.scenario);
  for (let round = 1; round <= 3; round++) {
    const t = performance.now();
    runtime.scenarios.activate(json);
    const activated = performance.now() - t;
    // Collected first: what is measured is the lookups, not the collection the activation left behind.
    global.gc?.();
    const q = performance.now();
    for (let i = 0; i < 1000; i++) runtime.scenarios.evaluateRequest({ method: 'GET', path: `/v1/addresses/a-${(i * 7919) % entries}`, headers: {}, query: {} }, 'request');
    console.log(`recorded scenario of ${converted.scenario.rules.length} rules (${mib(json.length)} MiB JSON): activated in ${activated.toFixed(0)} ms (round ${round}); 1,000 lookups ${(performance.now() - q).toFixed(1)} ms`);
  }
}
server.close();
runtime.dispose();
