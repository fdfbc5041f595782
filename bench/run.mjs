#!/usr/bin/env node
// npm run bench — throughput and latency of shipmock against the Prism CLI mock (static) and a
// bare Express 5 server returning the same bytes, for a GET of one resource and a validated
// POST; plus RSS and cold start to first answer. Every server and autocannon run as separate
// processes on 127.0.0.1. Options (env): BENCH_DURATION seconds per run (10), BENCH_CONNECTIONS (50),
// BENCH_CHECK=1 to exit non-zero when a target of issue 2 is missed, BENCH_RATE_LIMIT (--store: the
// mock's --rate-limit, e.g. off; default 1000000000/60s, under which every request counts its window).
// `npm run bench -- --inspector`: the API's throughput with the inspector closed and open.
// `npm run bench -- --cold`: first and later start of a freshly installed tarball.
// `npm run bench -- --scale`: RSS and latency of a list and a create at 0, 10k and 100k stored objects.
// `npm run bench -- --bookings`: inline bookings/s and RSS per booking for each label format.
// `npm run bench -- --store memory|sqlite|postgres [--workers N]`: one store (PostgreSQL: a
//   throwaway cluster started here), GET and POST req/s, p99, and database transactions per request.
// `npm run bench -- --scale-out [--processes 4] [--delays 0,1]`: N processes on PostgreSQL vs 1 at the same
//   total concurrency, one account per connection group, directly and through a delay proxy (bench/scale-out.mjs);
//   BENCH_ROUNDS rounds (1), each configuration's median shown.
// `npm run bench -- --size [--sizes 10000,50000] [--size-stores postgres,sqlite]`: RSS and list p99 at
//   stored bookings and addresses on the durable stores (bench/size.mjs).
// `npm run bench -- --stores [--against DIR]`: the three stores alternating, 3 rounds, medians, and
//   system calls per response (strace); with --against, another built checkout in the same rounds.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchAgain, freePort, waitFor } from './http.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const bin = (name) => `${root}node_modules/.bin/${name}`;




/** CPU time (user + system) a process has used so far, in ms (Linux clock ticks of 10 ms). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * Voluntary and involuntary context switches of a process' main thread (its event loop) so far:
 * each time it slept in epoll with nothing to read, or was preempted by another task.
 */
function contextSwitches(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
    return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)[1]) + Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)[1]);
  } catch {
    return NaN;
  }
}

function rssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
  } catch {
    return NaN;
  }
}

function autocannon(url, { method = 'GET', headers = {}, body, amount } = {}) {
  // `amount`: send exactly that many requests (however long it takes) instead of running `duration` seconds.
  const args = ['-c', String(connections), ...(amount ? ['-a', String(amount)] : ['-d', String(duration)]), '-j', '-m', method];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  if (body) args.push('-b', body);
  args.push(url);
  const result = spawnSync(bin('autocannon'), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const report = JSON.parse(result.stdout);
  const non2xx = report.non2xx + report.errors;
  return { rps: Math.round(report.requests.average), p50: report.latency.p50, p99: report.latency.p99, non2xx };
}

// ---------------------------------------------------------------------------------------------
const address = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };

/** `extra`: more serve flags; the durable row passes --data with a fresh SQLite file. `build`: the checkout whose bin/ runs. */
async function startShipmock(extra = [], name = 'shipmock', build = root) {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [`${build}bin/shipmock.js`, 'serve', '--port', String(port), '--log-level', 'warn', '--rate-limit', '1000000000/60s', ...extra], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const creds = JSON.parse(readFileSync(`${root}fixtures/credentials.json`, 'utf8')).companies[0];
  const basic = `Basic ${Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64')}`;
  // Cold start = spawn to the first real API answer (a carrier list), as for Prism below.
  await waitFor(`${url}/v1/carriers`, { headers: { Authorization: basic } });
  const coldStartMs = performance.now() - t0;
  return { name, child, url, coldStartMs, ...(await setUpAccount(url, creds, basic)) };
}

/** An account with a token and one address to GET: what every shipmock run measures against. */
async function setUpAccount(url, creds, basic) {
  const json = { 'Content-Type': 'application/json' };
  const post = async (path, auth, body) => (await fetchAgain(url + path, { method: 'POST', headers: { ...json, Authorization: auth }, body: JSON.stringify(body) })).json();
  const company = await post(`/v1/companies/${creds.companyId}/tokens`, basic, { grantType: 'client_credentials' });
  const account = await post('/v1/accounts', `Bearer ${company.accessToken}`, {
    company: { name: 'Bench GmbH', vatNumber: 'DE1', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
    contact: { name: 'Bench', email: 'bench@example.com', phone: '+49301234567' },
  });
  const token = await post(`/v1/accounts/${account.id}/tokens`, basic, { grantType: 'client_credentials' });
  const auth = `Bearer ${token.accessToken}`;
  const created = await post('/v1/addresses', auth, address);
  const getBody = await (await fetchAgain(`${url}/v1/addresses/${created.id}`, { headers: { Authorization: auth } })).text();
  const companyAuth = `Bearer ${company.accessToken}`;
  return { auth, getPath: `/v1/addresses/${created.id}`, getBody, creds, basic, companyAuth, accountPath: `/v1/accounts/${account.id}` };
}

/** Empties the mock and sets the account up again: rounds that follow each other start alike. */
async function resetTarget(target) {
  await fetchAgain(`${target.url}/__admin/reset`, { method: 'POST', headers: { 'X-Shipmock-Admin': '1' } });
  Object.assign(target, await setUpAccount(target.url, target.creds, target.basic));
}

async function startPrism() {
  const port = await freePort();
  const t0 = performance.now();
  // -v error: Prism logs every request at its default level, which would cost it a third of its throughput.
  const child = spawn(bin('prism'), ['mock', `${root}contract/openapi.yaml`, '-p', String(port), '-h', '127.0.0.1', '--errors', 'false', '-v', 'error'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/v1/addresses/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11`, { headers: { Authorization: 'Bearer x' } }, 60_000);
  return { name: 'prism', child, url, auth: 'Bearer bench', getPath: '/v1/addresses/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11', coldStartMs: performance.now() - t0 };
}

async function startBareExpress(getBody) {
  const port = await freePort();
  const code = `
    const express = require('express');
    const app = express();
    const body = ${JSON.stringify(getBody)};
    app.get('/v1/addresses/:id', (req, res) => res.type('application/json').send(body));
    app.post('/v1/addresses', express.json(), (req, res) => res.status(201).json({ id: '3f1c8a52-9d7e-4b21-8f43-1a2b3c4d5e6f' }));
    app.listen(${port}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['-e', code], { cwd: root, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/v1/addresses/x`);
  return { name: 'bare express', child, url, auth: 'Bearer bench', getPath: '/v1/addresses/x' };
}

/**
 * The ceiling of this machine and load generator: node:http answering fixed bytes (the GET body
 * shipmock answers; a POST reads its body and answers 201 with a fixed id). No routing, no parsing.
 */
async function startBareNodeHttp(getBody) {
  const port = await freePort();
  const code = `
    const http = require('node:http');
    const get = Buffer.from(${JSON.stringify(getBody)});
    const created = Buffer.from('{"id":"3f1c8a52-9d7e-4b21-8f43-1a2b3c4d5e6f"}');
    http.createServer((req, res) => {
      if (req.method === 'POST') {
        req.resume();
        req.on('end', () => { res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': created.length }); res.end(created); });
      } else {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': get.length });
        res.end(get);
      }
    }).listen(${port}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/v1/addresses/x`);
  return { name: 'bare node:http', child, url, auth: 'Bearer bench', getPath: '/v1/addresses/x' };
}

function measure(target) {
  const headers = { Authorization: target.auth };
  const get = autocannon(target.url + target.getPath, { headers });
  const post = autocannon(`${target.url}/v1/addresses`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(address) });
  return { get, post, rssMb: rssMb(target.child.pid) };
}

async function coldStarts(runs = 5) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const s = await startShipmock();
    times.push(s.coldStartMs);
    s.child.kill('SIGKILL');
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

/**
 * --inspector: what an open inspector costs the API. One shipmock, rounds alternating closed /
 * open (a headless chromium on the Traffic tab, streaming the journal), so drift of a noisy
 * machine spreads over both; reports req/s per round and the median cost.
 */
async function inspectorCost(rounds = 4) {
  const target = await startShipmock();
  const rows = [];
  try {
    for (let round = 0; round < rounds; round++) {
      // closed-open, then open-closed, …: drift of the machine falls on both alike.
      for (const open of round % 2 === 0 ? [false, true] : [true, false]) {
        let viewer;
        if (open) {
          viewer = spawn(process.execPath, [process.env.INSPECTOR_CLIENT ?? `${root}bench/inspector-client.mjs`, target.url], { stdio: ['ignore', 'pipe', 'inherit'] });
          await new Promise((resolve, reject) => {
            viewer.stdout.on('data', (d) => String(d).includes('ready') && resolve());
            viewer.on('exit', (code) => reject(new Error(`inspector client exited (${code})`)));
          });
        }
        // Every round from an empty store (POSTs pile up addresses, and a bigger heap is slower).
        await resetTarget(target);
        process.stderr.write(`round ${round + 1}, inspector ${open ? 'open' : 'closed'}…\n`);
        const cpuBefore = cpuMs(target.child.pid);
        const r = measure(target);
        // The mock's own CPU per request: what the API pays, apart from the browser's share of the machine.
        r.cpuUsPerRequest = Math.round(((cpuMs(target.child.pid) - cpuBefore) * 1000) / ((r.get.rps + r.post.rps) * duration));
        viewer?.kill('SIGTERM');
        if (viewer) await new Promise((resolve) => viewer.once('exit', resolve));
        rows.push({ round: round + 1, open, ...r });
      }
    }
  } finally {
    target.child.kill('SIGKILL');
  }
  console.log('\n| round | inspector | GET req/s | GET p99 ms | POST req/s | POST p99 ms | mock CPU µs/request | RSS MB |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.round} | ${r.open ? 'open' : 'closed'} | ${r.get.rps} | ${r.get.p99} | ${r.post.rps} | ${r.post.p99} | ${r.cpuUsPerRequest} | ${r.rssMb} |`);
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  for (const kind of ['get', 'post']) {
    const closed = median(rows.filter((r) => !r.open).map((r) => r[kind].rps));
    const open = median(rows.filter((r) => r.open).map((r) => r[kind].rps));
    console.log(`${kind.toUpperCase()}: closed ${closed} req/s, open ${open} req/s, cost ${(((closed - open) / closed) * 100).toFixed(1)} %`);
  }
  const cpu = (open) => median(rows.filter((r) => r.open === open).map((r) => r.cpuUsPerRequest));
  console.log(`mock CPU per request: closed ${cpu(false)} µs, open ${cpu(true)} µs`);
}

/**
 * --cold: what a CI job that installs shipmock fresh pays. Packs the package, installs the tarball
 * into an empty project (from the npm registry), then times spawn → first API answer of
 * `node node_modules/.bin/shipmock serve` on five fresh copies of that install (first starts) and
 * five more times on the last copy (later starts). Medians.
 */
async function coldFromTarball(runs = 5) {
  const { cpSync, mkdirSync, readdirSync } = await import('node:fs');
  const work = mkdtempSync(join(tmpdir(), 'shipmock-cold-'));
  const run = (cmd, args, cwd) => {
    const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${result.stderr}`);
    return result.stdout;
  };
  process.stderr.write('packing and installing the tarball into an empty project…\n');
  run('npm', ['pack', '--pack-destination', work, '--silent'], root);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  const template = join(work, 'template');
  mkdirSync(template);
  run('npm', ['init', '-y'], template);
  run('npm', ['install', '--no-audit', '--no-fund', join(work, tarball)], template);
  const startOnce = async (dir) => {
    const port = await freePort();
    const t0 = performance.now();
    const child = spawn(process.execPath, [join(dir, 'node_modules/.bin/shipmock'), 'serve', '--port', String(port), '--log-level', 'warn'], { cwd: dir, stdio: 'ignore' });
    const creds = JSON.parse(readFileSync(`${root}fixtures/credentials.json`, 'utf8')).companies[0];
    await waitFor(`http://127.0.0.1:${port}/v1/carriers`, { headers: { Authorization: `Basic ${Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64')}` } });
    const ms = performance.now() - t0;
    child.kill('SIGKILL');
    // Let the killed process go before the next start is timed (2 cores).
    await new Promise((resolve) => child.once('exit', () => setTimeout(resolve, 300)));
    return ms;
  };
  const first = [];
  let copy;
  for (let i = 0; i < runs; i++) {
    copy = join(work, `copy-${i}`);
    cpSync(template, copy, { recursive: true });
    first.push(await startOnce(copy));
  }
  const later = [];
  for (let i = 0; i < runs; i++) later.push(await startOnce(copy));
  const median = (values) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]);
  console.log(`\n| start of a freshly installed tarball | median ms | runs |\n|---|---|---|`);
  console.log(`| first start (fresh copy of the install) | ${median(first)} | ${first.map(Math.round).join(', ')} |`);
  console.log(`| later starts | ${median(later)} | ${later.map(Math.round).join(', ')} |`);
}

/**
 * --scale: does a request cost more as the store grows? RSS, and p50/p99 of a list page
 * (GET /v1/addresses?limit=20) and of a create (POST /v1/addresses, 5,000 of them), at 0, 10k and
 * 100k stored addresses, in memory and on a --data SQLite file.
 */
async function scaleRun() {
  const rows = [];
  for (const store of ['memory', 'sqlite']) {
    const extra = store === 'sqlite' ? ['--data', join(mkdtempSync(join(tmpdir(), 'shipmock-scale-')), 'scale.db')] : [];
    const target = await startShipmock(extra, `shipmock (${store})`);
    const headers = { Authorization: target.auth };
    const post = { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(address) };
    let stored = 1;
    try {
      for (const goal of [0, 10_000, 100_000]) {
        if (goal > stored) {
          process.stderr.write(`${store}: filling to ${goal} addresses…\n`);
          autocannon(`${target.url}/v1/addresses`, { ...post, amount: goal - stored });
          stored = goal;
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const rss = rssMb(target.child.pid);
        const list = autocannon(`${target.url}/v1/addresses?limit=20`, { headers });
        const create = autocannon(`${target.url}/v1/addresses`, { ...post, amount: 5000 });
        stored += 5000;
        rows.push({ store, goal, rss, list, create });
      }
    } finally {
      target.child.kill('SIGKILL');
    }
  }
  // A list at 0 answers one address, later ones a full page of 20: compare 10k with 100k for growth.
  console.log('\n| store | stored addresses | RSS MB | list req/s | list p50/p99 ms | create p50/p99 ms (5,000) |\n|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.store} | ${r.goal.toLocaleString('en')} | ${r.rss} | ${r.list.rps} | ${r.list.p50} / ${r.list.p99} | ${r.create.p50} / ${r.create.p99} |`);
  for (const store of ['memory', 'sqlite']) {
    const [zero, , full] = rows.filter((r) => r.store === store);
    console.log(`${store}: RSS per stored address ${(((full.rss - zero.rss) * 1024) / 100_000).toFixed(2)} KiB`);
  }
}

/**
 * --bookings: inline bookings per label format for BENCH_DURATION seconds (default 5) at c=10:
 * bookings/s, p50/p99, and RSS before and after — what a booking costs to make and to keep.
 * (A fixed duration, not autocannon's -a: with -a its duration ends on a whole-second tick,
 * which understated 3,000 bookings in 1.2 s as 1,493/s.)
 */
async function bookingsRun() {
  const seconds = String(process.env.BENCH_DURATION ?? 5);
  console.log('\n| label format | bookings/s | p50 / p99 ms | RSS before → after MB | KiB per booking | non-2xx |\n|---|---|---|---|---|---|');
  for (const format of ['PDF', 'PNG', 'ZPL']) {
    const target = await startShipmock();
    try {
      const post = async (path, body) => {
        const res = await fetchAgain(target.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: target.auth }, body: JSON.stringify(body) });
        const json = await res.json();
        if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
        return json;
      };
      const get = async (path) => (await fetchAgain(target.url + path, { headers: { Authorization: target.auth } })).json();
      const dhl = (await get('/v1/carriers?limit=100')).items.find((c) => /DHL/.test(c.name) && !/Express/.test(c.name));
      const paket = (await get(`/v1/carriers/${dhl.id}/services`)).items.find((s) => /Paket/.test(s.name));
      const carrierDefinition = await post('/v1/carrier-definitions', { carrierId: dhl.id, name: 'DHL' });
      const serviceDefinition = await post('/v1/service-definitions', { carrierDefinitionId: carrierDefinition.id, serviceId: paket.id, name: 'Paket' });
      const channel = await post('/v1/shipment-channels', { name: format, documentRendering: { labelFormat: format, labelSize: format === 'ZPL' ? 'LABEL_4X6' : 'A6' } });
      const body = {
        serviceDefinitionId: serviceDefinition.id,
        shipmentChannelId: channel.id,
        sender: address,
        receiver: { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' },
        parcels: [{ weight: 2.5 }],
        reference: 'BENCH',
      };
      await post('/v1/shipment-bookings/inline', body);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const before = rssMb(target.child.pid);
      const args = ['-c', '10', '-d', seconds, '-j', '-m', 'POST', '-H', `Authorization=${target.auth}`, '-H', 'Content-Type=application/json', '-b', JSON.stringify(body), `${target.url}/v1/shipment-bookings/inline`];
      const report = JSON.parse(spawnSync(bin('autocannon'), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const after = rssMb(target.child.pid);
      const count = report.requests.total;
      const perSecond = Math.round(count / report.duration);
      console.log(`| ${format} | ${perSecond} | ${report.latency.p50} / ${report.latency.p99} | ${before} → ${after} (${count} bookings) | ${(((after - before) * 1024) / count).toFixed(1)} | ${report.non2xx} |`);
    } finally {
      target.child.kill('SIGKILL');
    }
  }
}

/**
 * --store memory|sqlite|postgres [--workers N]: GET and POST against one store. For PostgreSQL a
 * throwaway cluster is started (scripts/throwaway-postgres.mjs) and the database's committed
 * transactions are counted (pg_stat_database: a batch's script and the clock read after its COMMIT
 * count apart). Round trips come from the processes' batch counters: two for a locked batch (open
 * with the lock and the pull; the writes with COMMIT), one for a read batch (its pull, which counts
 * its windows on PostgreSQL), one more for a read batch that committed.
 */
async function storeRun(store, workers) {
  let cluster;
  let extra = [];
  let url;
  let file;
  if (store === 'sqlite') extra = ['--data', (file = join(mkdtempSync(join(tmpdir(), 'shipmock-bench-')), 'bench.db'))];
  else if (store === 'postgres') {
    const { startThrowawayPostgres } = await import('../scripts/throwaway-postgres.mjs');
    cluster = await startThrowawayPostgres();
    url = await cluster.createDatabase();
    extra = ['--data', url];
  } else if (store !== 'memory') throw new Error(`--store memory|sqlite|postgres, not ${store}`);
  if (workers > 1) extra.push('--workers', String(workers));
  // BENCH_RATE_LIMIT=off: GETs count no window (the bench's default limit, 1e9/60s, makes each one write its window).
  if (process.env.BENCH_RATE_LIMIT) extra.push('--rate-limit', process.env.BENCH_RATE_LIMIT);
  // Batches: PostgreSQL's committed transactions; a shared SQLite file (--workers) counts its changes.
  const sharedFile = file && workers > 1;
  const commits = async () => {
    if (sharedFile) {
      const Database = (await import('better-sqlite3')).default;
      const db = new Database(file, { readonly: true, timeout: 5000 });
      const value = db.prepare("SELECT value FROM shipmock_counters WHERE name = 'change'").pluck().get();
      db.close();
      return Number(value);
    }
    if (!url) return 0;
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()');
    await client.end();
    return Number(rows[0].xact_commit);
  };
  const target = await startShipmock(extra, `shipmock ${store}`);
  try {
    const headers = { Authorization: target.auth };
    const run = async (name, options) => {
      const before = await commits();
      const batchesBefore = await batchCounters(target.url, workers);
      const result = autocannon(options.url, { ...options, headers: { ...headers, ...options.headers } });
      const batches = batchCounterDelta(batchesBefore, await batchCounters(target.url, workers));
      // pg_stat_database is updated when a backend reports its counters (at most every 500 ms).
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const transactions = (await commits()) - before;
      const requests = result.rps * duration;
      return { name, ...result, perRequest: url || sharedFile ? (transactions / requests).toFixed(3) : 'n/a', roundTrips: (batches.roundTrips / requests).toFixed(3), batches };
    };
    const get = await run('GET', { url: target.url + target.getPath });
    const post = await run('POST', { url: `${target.url}/v1/addresses`, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(address) });
    console.log(`\n| store | workers | request | req/s | p50 / p99 ms | batches (transactions) per request | database round trips per request |\n|---|---|---|---|---|---|---|`);
    for (const r of [get, post]) console.log(`| ${store} | ${workers} | ${r.name} | ${r.rps} | ${r.p50} / ${r.p99} | ${r.perRequest} | ${url ? r.roundTrips : 'in process'} |`);
    // With --workers, every worker's counters, summed (each worker counts its own).
    console.log(`\n| store | workers | request | requests per batch | lock wait ms per batch | lock hold ms per batch | lock wait / hold ms per request (amortised) |\n|---|---|---|---|---|---|---|`);
    for (const r of [get, post]) console.log(`| ${store} | ${workers} | ${r.name} | ${describeBatches(r.batches)} |`);
  } finally {
    target.child.kill('SIGKILL');
    cluster?.stop();
  }
}

/**
 * GET /__admin/store/batches (src/store/lock-stats.ts) of every process behind `url`, by its
 * `process` number: a shared store's batch counters, each process's own. Behind `--workers` each
 * connection reaches one worker, so every read goes on a connection of its own until each of
 * the `processes` has answered.
 */
async function batchCounters(url, processes = 1) {
  const byProcess = new Map();
  for (let read = 0; byProcess.size < processes && read < processes * 50; read++) {
    const counters = await (await fetchAgain(`${url}/__admin/store/batches`, { headers: { 'X-Shipmock-Admin': '1', Connection: 'close' } })).json();
    byProcess.set(counters.process ?? 0, counters);
  }
  if (byProcess.size < processes) throw new Error(`GET /__admin/store/batches: ${byProcess.size} of ${processes} processes answered`);
  return byProcess;
}

/** What the processes' counters grew by between two reads, summed over the processes. */
function batchCounterDelta(before, after) {
  const keys = ['batches', 'members', 'lockWaitMs', 'lockHoldMs', 'serialMs', 'roundTrips'];
  const value = (counters, key) => (key === 'roundTrips' ? roundTripsOf(counters) : counters[key]);
  return Object.fromEntries(keys.map((key) => [key, [...after].reduce((sum, [process, counters]) => sum + value(counters, key) - (before.has(process) ? value(before.get(process), key) : 0), 0)]));
}

/** A process's round trips to its database by its batch counters: two a locked batch, one a read batch, one more a read that committed. */
function roundTripsOf(counters) {
  const reads = counters.reads ?? { batches: 0, committed: 0 };
  return 2 * (counters.batches - reads.batches) + reads.batches + reads.committed;
}

/** Requests per batch, the lock's wait and hold per batch, and per request (a batch's wait shared by its members). */
function describeBatches(b) {
  if (!b.batches) return 'n/a | n/a | n/a | n/a';
  const per = (value, count, digits = 2) => (value / count).toFixed(digits);
  return `${per(b.members, b.batches)} | ${per(b.lockWaitMs, b.batches)} | ${per(b.lockHoldMs, b.batches)} | ${per(b.lockWaitMs, b.members, 3)} / ${per(b.lockHoldMs, b.members, 3)}`;
}

/**
 * --stores [--against DIR]: is the default (in-memory) store as fast as the durable ones (issue
 * 24)? memory, SQLite (--data FILE) and PostgreSQL (--data postgres://… on a throwaway cluster),
 * each a fresh process, in alternating order, BENCH_ROUNDS rounds (3): GET /v1/accounts/{id} with
 * a Company token and a POST of an address with an account token; req/s and p99 as medians with
 * their spread, and the mock's CPU per response. Then, with `strace -c -f` attached while a fixed
 * number of requests is answered, system calls per response: a measure that the load of a shared
 * machine does not move. `--against DIR`: another checkout, built (its bin/ and dist/; e.g. a
 * worktree of the commit before a change), measured in the same rounds, so before and after come
 * from one run.
 */
async function storesRun(against) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const builds = [['this', root], ...(against ? [['against', against.endsWith('/') ? against : `${against}/`]] : [])];
  const { startThrowawayPostgres } = await import('../scripts/throwaway-postgres.mjs');
  const cluster = await startThrowawayPostgres();
  const storeFlags = {
    memory: async () => [],
    sqlite: async () => ['--data', join(mkdtempSync(join(tmpdir(), 'shipmock-bench-')), 'bench.db')],
    postgres: async () => ['--data', await cluster.createDatabase()],
  };
  const stores = Object.keys(storeFlags);
  const requests = (target) => ({
    get: { url: target.url + target.accountPath, headers: { Authorization: target.companyAuth } },
    post: { url: `${target.url}/v1/addresses`, method: 'POST', headers: { Authorization: target.auth, 'Content-Type': 'application/json' }, body: JSON.stringify(address) },
  });
  const rows = [];
  const syscalls = [];
  const amount = Number(process.env.BENCH_SYSCALL_REQUESTS ?? 4000);
  try {
    for (let round = 0; round < rounds; round++) {
      // Rotated and reversed each round: drift of the machine falls on every store and build alike.
      const order = stores.slice(round % stores.length).concat(stores.slice(0, round % stores.length));
      for (const store of order) {
        for (const [build, dir] of round % 2 ? [...builds].reverse() : builds) {
          process.stderr.write(`round ${round + 1}: ${store} (${build})…\n`);
          const target = await startShipmock(await storeFlags[store](), store, dir);
          try {
            const { get, post } = requests(target);
            const pid = target.child.pid;
            const measured = {};
            for (const [kind, request] of [['get', get], ['post', post]]) {
              const [cpu, switches] = [cpuMs(pid), contextSwitches(pid)];
              const result = autocannon(request.url, request);
              const responses = result.rps * duration;
              measured[kind] = { ...result, cpuUs: Math.round(((cpuMs(pid) - cpu) * 1000) / responses), switches: Number(((contextSwitches(pid) - switches) / responses).toFixed(2)) };
            }
            rows.push({ round: round + 1, store, build, ...measured });
          } finally {
            target.child.kill('SIGKILL');
          }
        }
      }
    }
    for (const store of stores) {
      for (const [build, dir] of builds) {
        process.stderr.write(`system calls: ${store} (${build}), ${amount} requests each…\n`);
        const target = await startShipmock(await storeFlags[store](), store, dir);
        try {
          const counted = {};
          for (const [kind, request] of Object.entries(requests(target))) counted[kind] = await countSyscalls(target.child.pid, () => autocannon(request.url, { ...request, amount }), amount);
          syscalls.push({ store, build, ...counted });
        } finally {
          target.child.kill('SIGKILL');
        }
      }
    }
  } finally {
    cluster.stop();
  }
  console.log('\n| round | store | build | GET req/s | GET p99 ms | GET CPU µs / context switches per response | POST req/s | POST p99 ms | POST CPU µs / context switches per response |\n|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.round} | ${r.store} | ${r.build} | ${r.get.rps} | ${r.get.p99} | ${r.get.cpuUs} / ${r.get.switches} | ${r.post.rps} | ${r.post.p99} | ${r.post.cpuUs} / ${r.post.switches} |`);
  const spread = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${sorted[Math.floor(sorted.length / 2)]} (${sorted[0]}–${sorted[sorted.length - 1]})`;
  };
  console.log(`\nMedians of ${rounds} rounds (min–max), ${duration} s runs, -c ${connections}:\n\n| store | build | GET req/s | GET p99 ms | POST req/s | POST p99 ms | CPU µs/response GET / POST | context switches/response GET / POST |\n|---|---|---|---|---|---|---|---|`);
  for (const store of stores) {
    for (const [build] of builds) {
      const mine = rows.filter((r) => r.store === store && r.build === build);
      const of = (kind, field) => spread(mine.map((r) => r[kind][field]));
      console.log(`| ${store} | ${build} | ${of('get', 'rps')} | ${of('get', 'p99')} | ${of('post', 'rps')} | ${of('post', 'p99')} | ${of('get', 'cpuUs')} / ${of('post', 'cpuUs')} | ${of('get', 'switches')} / ${of('post', 'switches')} |`);
    }
  }
  const calls = (c) => `${c.total} (writev ${c.writev}, read ${c.read}, epoll ${c.epoll}, futex ${c.futex})`;
  console.log(`\nSystem calls per response (strace -c -f, ${amount} requests, all threads):\n\n| store | build | GET | POST |\n|---|---|---|---|`);
  for (const s of syscalls) console.log(`| ${s.store} | ${s.build} | ${calls(s.get)} | ${calls(s.post)} |`);
}

/** `strace -c -f` on a running process while `work()` sends `amount` requests: calls per response. */
async function countSyscalls(pid, work, amount) {
  const out = join(mkdtempSync(join(tmpdir(), 'shipmock-strace-')), 'counts.txt');
  const tracer = spawn('strace', ['-c', '-f', '-q', '-p', String(pid), '-o', out], { stdio: 'ignore' });
  // strace prints nothing when it has attached: give it a moment (the run is counted by requests, not time).
  await new Promise((resolve) => setTimeout(resolve, 1000));
  work();
  tracer.kill('SIGINT');
  await new Promise((resolve) => tracer.once('exit', resolve));
  const counts = {};
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    const fields = line.trim().split(/\s+/);
    const name = fields.at(-1);
    // % time, seconds, usecs/call, calls, [errors], syscall
    if (fields.length >= 5 && /^\d+$/.test(fields[3])) counts[name] = Number(fields[3]);
  }
  const per = (n) => Number(((n ?? 0) / amount).toFixed(2));
  return { total: per(counts.total), writev: per((counts.writev ?? 0) + (counts.write ?? 0)), read: per(counts.read), epoll: per((counts.epoll_pwait ?? 0) + (counts.epoll_wait ?? 0)), futex: per(counts.futex) };
}

if (process.argv.includes('--scale-out')) {
  const { scaleOutRun } = await import('./scale-out.mjs');
  const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
  const delays = option('--delays', '0,1').split(',').map(Number);
  // Groups of equal size: the total is BENCH_CONNECTIONS rounded down to a multiple of the processes.
  const processes = Number(option('--processes', '4'));
  await scaleOutRun({ processes, delays, duration, warmup: Number(process.env.BENCH_WARMUP ?? 3), rounds: Number(process.env.BENCH_ROUNDS ?? 1), connections: Math.floor(connections / processes) * processes });
  process.exit(0);
}

if (process.argv.includes('--size')) {
  const { sizeRun } = await import('./size.mjs');
  const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
  await sizeRun({ sizes: option('--sizes', '10000,50000').split(',').map(Number), stores: option('--size-stores', 'postgres,sqlite').split(','), duration });
  process.exit(0);
}

if (process.argv.includes('--stores')) {
  const againstIndex = process.argv.indexOf('--against');
  await storesRun(againstIndex > 0 ? process.argv[againstIndex + 1] : undefined);
  process.exit(0);
}

const storeIndex = process.argv.indexOf('--store');
if (storeIndex > 0) {
  const workersIndex = process.argv.indexOf('--workers');
  await storeRun(process.argv[storeIndex + 1], workersIndex > 0 ? Number(process.argv[workersIndex + 1]) : 1);
  process.exit(0);
}

if (process.argv.includes('--bookings')) {
  await bookingsRun();
  process.exit(0);
}

if (process.argv.includes('--scale')) {
  await scaleRun();
  process.exit(0);
}

if (process.argv.includes('--cold')) {
  await coldFromTarball();
  process.exit(0);
}

if (process.argv.includes('--inspector')) {
  await inspectorCost();
  process.exit(0);
}

// One server at a time: servers side by side on 2 cores skewed each other's numbers by up to 30 %.
const results = {};
const targets = [
  ['shipmock', () => startShipmock()],
  // The durable store (issue 13): every POST commits a SQLite transaction before it answers.
  ['shipmock --data', () => startShipmock(['--data', join(mkdtempSync(join(tmpdir(), 'shipmock-bench-')), 'bench.db')], 'shipmock --data')],
  ['prism', () => startPrism()],
  ['bare express', (getBody) => startBareExpress(getBody)],
  ['bare node:http', (getBody) => startBareNodeHttp(getBody)],
];
let getBody;
let prism;
for (const [name, start] of targets) {
  const target = await start(getBody);
  getBody ??= target.getBody;
  if (name === 'prism') prism = target;
  try {
    process.stderr.write(`benchmarking ${name} (${duration} s × 2, -c ${connections})…\n`);
    results[name] = measure(target);
  } finally {
    target.child.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
const coldStartMs = await coldStarts();

const row = (name, r) =>
  `| ${name} | ${r.get.rps} | ${r.get.p50} / ${r.get.p99} | ${r.post.rps} | ${r.post.p50} / ${r.post.p99} | ${r.rssMb} | ${r.get.non2xx + r.post.non2xx} |`;
console.log(`\n| server | GET req/s | GET p50/p99 ms | POST req/s | POST p50/p99 ms | RSS MB | non-2xx |`);
console.log('|---|---|---|---|---|---|---|');
for (const [name, r] of Object.entries(results)) console.log(row(name, r));
const s = results.shipmock;
const ratio = (a, b) => (a / b).toFixed(2);
const checks = [
  ['shipmock / prism, GET', ratio(s.get.rps, results.prism.get.rps), s.get.rps >= 2 * results.prism.get.rps],
  ['shipmock / prism, POST', ratio(s.post.rps, results.prism.post.rps), s.post.rps >= 2 * results.prism.post.rps],
  ['shipmock / bare express, GET', ratio(s.get.rps, results['bare express'].get.rps), s.get.rps >= 0.85 * results['bare express'].get.rps],
  ['shipmock / bare express, POST', ratio(s.post.rps, results['bare express'].post.rps), s.post.rps >= 0.85 * results['bare express'].post.rps],
  // Issue 16: against the ceiling of this machine, with auth, rate limit, validation and state on.
  ['shipmock / bare node:http, GET (goal 0.40)', ratio(s.get.rps, results['bare node:http'].get.rps), s.get.rps >= 0.4 * results['bare node:http'].get.rps],
  ['shipmock / bare node:http, POST (goal 0.30)', ratio(s.post.rps, results['bare node:http'].post.rps), s.post.rps >= 0.3 * results['bare node:http'].post.rps],
  ['shipmock --data / in memory, GET', ratio(results['shipmock --data'].get.rps, s.get.rps), results['shipmock --data'].get.rps >= 0.9 * s.get.rps],
  ['shipmock --data / in memory, POST', ratio(results['shipmock --data'].post.rps, s.post.rps), results['shipmock --data'].post.rps >= 0.7 * s.post.rps],
  ['cold start to first answer (median of 5), ms', Math.round(coldStartMs), coldStartMs <= 500],
  ['prism cold start, ms', Math.round(prism.coldStartMs), true],
];
console.log('\n| measure | value | target met |\n|---|---|---|');
for (const [name, value, ok] of checks) console.log(`| ${name} | ${value} | ${ok ? 'yes' : 'NO'} |`);
if (process.env.BENCH_CHECK && checks.some(([, , ok]) => !ok)) process.exit(1);
