#!/usr/bin/env node
/**
 * Soak test (not in CI): starts a real mock, sends mixed traffic at a steady rate for a while and
 * watches the server's memory.
 *
 *   npm run soak -- --minutes 30 [--rps 50] [--dist]
 *
 * Traffic: tokens, creates and deletes, lists, bookings with label downloads, webhooks to a local
 * receiver (an Event Channel plus mock events), virtual-clock advances via the control plane.
 * The account's data is reset through the control plane every few minutes, so what the store
 * legitimately keeps (bookings cannot be deleted) does not read as a leak; everything else
 * (journal, delivery log, token caches, rate-limit windows, sockets) keeps running.
 *
 * The server's RSS is read from /proc/<pid>/status once a minute (every tenth of the run when it
 * is shorter than ten minutes), printed, and judged: "growing" when the mean of the last third
 * of the samples is more than 10 % and 8 MiB above the middle third's, else "flat". Exit code 1
 * when growing or when any request failed with a 5xx or a dropped connection.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const minutes = Number(arg('minutes', 30));
const rps = Number(arg('rps', 50));
if (!(minutes > 0) || !(rps > 0 && rps <= 2000)) {
  process.stderr.write('usage: npm run soak -- --minutes N [--rps 1..2000] [--dist]\n');
  process.exit(2);
}
const durationMs = minutes * 60_000;
const sampleEveryMs = Math.min(60_000, durationMs / 10);

// ---- a webhook receiver ---------------------------------------------------------------------
let webhooks = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    webhooks++;
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

// ---- the mock ---------------------------------------------------------------------------------
const fromSource = `import('./src/cli/main.ts').then((m) => m.main(process.argv.slice(1))).catch((e) => { process.stderr.write(String(e?.stack ?? e)); process.exit(2); })`;
const entry = process.argv.includes('--dist') ? ['bin/shipmock.js'] : ['--import', 'tsx', '-e', fromSource];
const child = spawn(process.execPath, [...entry, 'serve', '--port', '0', '--log-level', 'error', '--clock', 'manual', '--rate-limit', '1000000000/60s'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
child.stdout.on('data', (c) => (output += c));
child.stderr.on('data', (c) => (output += c));
let exited = false;
child.once('exit', () => (exited = true));
// Never leave the mock behind, whatever ends this script.
process.on('exit', () => exited || child.kill('SIGTERM'));
const base = await new Promise((resolve, reject) => {
  const started = Date.now();
  const poll = setInterval(() => {
    const m = /shipmock listening on (http:\/\/\S+)/.exec(output);
    if (m) resolve((clearInterval(poll), m[1]));
    else if (exited || Date.now() - started > 60_000) reject((clearInterval(poll), new Error(`shipmock did not start:\n${output}`)));
  }, 50);
});

const rssKiB = () => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
};

// ---- HTTP helpers -------------------------------------------------------------------------------
const stats = { sent: 0, byClass: {}, failures: [] };
async function call(method, path, { auth, body, expect } = {}) {
  const headers = { accept: 'application/json' };
  if (auth) headers.authorization = auth;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    stats.failures.push(`${method} ${path}: ${error.message}`);
    return { status: 0 };
  }
  const buffer = Buffer.from(await res.arrayBuffer());
  stats.sent++;
  const cls = `${Math.floor(res.status / 100)}xx`;
  stats.byClass[cls] = (stats.byClass[cls] ?? 0) + 1;
  if (res.status >= 500) stats.failures.push(`${method} ${path}: ${res.status} ${buffer.toString().slice(0, 300)}`);
  const json = (res.headers.get('content-type') ?? '').includes('json') && buffer.length ? JSON.parse(buffer.toString()) : undefined;
  if (expect && res.status !== expect) throw new Error(`${method} ${path}: ${res.status}, expected ${expect}: ${buffer.toString().slice(0, 300)}`);
  return { status: res.status, json, bytes: buffer.length };
}
// JSON bodies on every control-plane POST (it refuses simple, form-like requests).
const admin = (method, path, body) => call(method, `/__admin${path}`, { body: method === 'GET' ? undefined : (body ?? {}) });

const credentials = (await admin('GET', '/credentials')).json;
const company = credentials.companies[0];
const basic = `Basic ${Buffer.from(`${company.clientId}:${company.clientSecret}`).toString('base64')}`;
const grant = { grantType: 'client_credentials' };

const ctx = {};
async function tokens() {
  ctx.company = `Bearer ${(await call('POST', `/v1/companies/${company.companyId}/tokens`, { auth: basic, body: grant, expect: 200 })).json.accessToken}`;
  ctx.account = `Bearer ${(await call('POST', `/v1/accounts/${ctx.accountId}/tokens`, { auth: basic, body: grant, expect: 200 })).json.accessToken}`;
}
async function kit() {
  const auth = ctx.account;
  const carriers = (await call('GET', '/v1/carriers?limit=100', { auth, expect: 200 })).json.items;
  const dhl = carriers.find((c) => c.code === 'DHL_PARCEL') ?? carriers[0];
  const services = (await call('GET', `/v1/carriers/${dhl.id}/services`, { auth, expect: 200 })).json.items;
  const paket = services.find((s) => s.code === 'DHL_PAKET') ?? services[0];
  const cd = (await call('POST', '/v1/carrier-definitions', { auth, body: { carrierId: dhl.id, name: 'Soak DHL' }, expect: 201 })).json.id;
  ctx.serviceDefinitionId = (await call('POST', '/v1/service-definitions', { auth, body: { carrierDefinitionId: cd, serviceId: paket.id, name: 'Soak Paket' }, expect: 201 })).json.id;
  ctx.channelId = (await call('POST', '/v1/shipment-channels', { auth, body: { name: 'Soak channel', documentRendering: { labelFormat: 'PDF', labelSize: 'A6' } }, expect: 201 })).json.id;
  ctx.sender = (await call('POST', '/v1/addresses', { auth, body: { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' }, expect: 201 })).json.id;
  ctx.receiver = (await call('POST', '/v1/addresses', { auth, body: { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' }, expect: 201 })).json.id;
  await call('POST', '/v1/event-channels', { auth, body: { name: 'Soak hooks', topics: ['SHIPMENT_BOOKING', 'PARCEL'], webhook: { url: hookUrl } }, expect: 201 });
}
async function setup() {
  ctx.company = `Bearer ${(await call('POST', `/v1/companies/${company.companyId}/tokens`, { auth: basic, body: grant, expect: 200 })).json.accessToken}`;
  const account = await call('POST', '/v1/accounts', {
    auth: ctx.company,
    body: { company: { name: 'Soak GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' }, contact: { name: 'Soak', email: 'soak@example.com', phone: '+49301234567' } },
    expect: 201,
  });
  ctx.accountId = account.json.id;
  await tokens();
  await kit();
}

// ---- the traffic mix ------------------------------------------------------------------------------
const actions = [
  [3, async () => call('GET', '/v1/addresses?limit=20', { auth: ctx.account })],
  [2, async () => call('GET', '/v1/carriers', { auth: ctx.account })],
  [1, async () => call('GET', '/v1/accounts', { auth: ctx.company })],
  [3, async () => {
    const created = await call('POST', '/v1/addresses', { auth: ctx.account, body: { name: 'Temp', street: 'Weg 1', city: 'Köln', postalCode: '50667', countryCode: 'DE' } });
    if (created.json?.id) await call('DELETE', `/v1/addresses/${created.json.id}`, { auth: ctx.account });
  }],
  [3, async () => call('POST', '/v1/parcels', { auth: ctx.account, body: { weight: 1.5, reference: 'SOAK' } })],
  [2, async () => {
    const parcel = await call('POST', '/v1/parcels', { auth: ctx.account, body: { weight: 2.5, reference: 'SOAK-B' } });
    if (!parcel.json?.id) return;
    const booking = await call('POST', '/v1/shipment-bookings', {
      auth: ctx.account,
      body: { serviceDefinitionId: ctx.serviceDefinitionId, shipmentChannelId: ctx.channelId, parties: [{ role: 'SENDER', entityType: 'ADDRESS', id: ctx.sender }, { role: 'RECEIVER', entityType: 'ADDRESS', id: ctx.receiver }], parcelIds: [parcel.json.id], reference: 'SOAK' },
    });
    if (!booking.json?.id) return;
    const full = await call('GET', `/v1/shipment-bookings/${booking.json.id}`, { auth: ctx.account });
    const documentId = full.json?.documentIds?.[0];
    if (documentId) await call('GET', `/v1/documents/${documentId}/data`, { auth: ctx.account });
  }],
  [1, async () => call('POST', '/v1/event-channels/events', { auth: ctx.account, body: { topic: 'PARCEL' } })],
  [1, async () => call('POST', `/v1/companies/${company.companyId}/tokens`, { auth: basic, body: grant })],
  [1, async () => call('GET', '/v1/reports', { auth: ctx.account })],
  [1, async () => call('GET', '/v1/addresses/00000000-0000-4000-8000-000000000000', { auth: ctx.account })],
];
const totalWeight = actions.reduce((n, [w]) => n + w, 0);
let pick = 0;
function nextAction() {
  // Deterministic weighted round robin: the same mix every run.
  let at = pick++ % totalWeight;
  for (const [w, fn] of actions) {
    if (at < w) return fn;
    at -= w;
  }
  return actions[0][1];
}

// ---- run ---------------------------------------------------------------------------------------------
await setup();
const samples = [];
const startedAt = Date.now();
const sample = () => {
  const s = { atSec: Math.round((Date.now() - startedAt) / 1000), rssMiB: +(rssKiB() / 1024).toFixed(1), requests: stats.sent, webhooks };
  samples.push(s);
  process.stdout.write(`  t=${String(s.atSec).padStart(5)} s  rss ${String(s.rssMiB).padStart(7)} MiB  requests ${s.requests}  webhooks received ${s.webhooks}\n`);
};
process.stdout.write(`soak: ${base} (pid ${child.pid}), ${minutes} min at ${rps} req/s\n`);
sample();
let inFlight = 0;
let actionErrors = 0;
const maxInFlight = 32;
const ticker = setInterval(() => {
  if (inFlight >= maxInFlight || exited) return;
  inFlight++;
  nextAction()()
    .catch((error) => {
      actionErrors++;
      if (actionErrors <= 5) process.stdout.write(`  action failed: ${error.message}\n`);
    })
    .finally(() => inFlight--);
}, 1000 / rps);
const sampler = setInterval(sample, sampleEveryMs);
// Every 5 s of wall time, 1 minute of virtual time: webhook retries fire, tokens age.
const clock = setInterval(() => admin('POST', '/clock/advance', { duration: 'PT1M' }).catch(() => undefined), 5000);
// Every 4 minutes of wall time (48 virtual minutes): fresh tokens; every 5: the account's data reset.
const renew = setInterval(() => tokens().catch((e) => stats.failures.push(`token renewal: ${e.message}`)), 4 * 60_000);
const reset = setInterval(async () => {
  try {
    await admin('POST', '/reset', { accountId: ctx.accountId });
    await kit();
  } catch (error) {
    stats.failures.push(`reset: ${error.message}`);
  }
}, 5 * 60_000);

await new Promise((resolve) => setTimeout(resolve, durationMs));
for (const t of [ticker, sampler, clock, renew, reset]) clearInterval(t);
while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));
if (!exited) sample();

// ---- verdict -----------------------------------------------------------------------------------------
const third = Math.floor(samples.length / 3);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const middle = mean(samples.slice(third, 2 * third).map((s) => s.rssMiB));
const last = mean(samples.slice(2 * third).map((s) => s.rssMiB));
const growing = samples.length >= 3 && last > middle * 1.1 && last - middle > 8;
process.stdout.write(
  [
    `soak done: ${stats.sent} requests in ${((Date.now() - startedAt) / 1000).toFixed(0)} s (${Object.entries(stats.byClass).map(([k, v]) => `${k} ${v}`).join(', ')}), ${webhooks} webhooks received`,
    `  rss: first ${samples[0].rssMiB} MiB, middle third mean ${middle.toFixed(1)} MiB, last third mean ${last.toFixed(1)} MiB → ${growing ? 'GROWING' : 'flat'}`,
    `  server ${exited ? 'EXITED' : 'still up'}; 5xx/transport failures: ${stats.failures.length}; failed actions: ${actionErrors}`,
    ...stats.failures.slice(0, 10).map((f) => `    ${f}`),
    '',
  ].join('\n'),
);
child.kill('SIGTERM');
receiver.close();
process.exit(growing || exited || stats.failures.length ? 1 : 0);
