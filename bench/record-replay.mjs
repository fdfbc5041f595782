#!/usr/bin/env node
// npm run bench:record-replay — the budgets of issue 26 for `shipmock record` and `serve --replay`
// (needs a build: npm run build). Every server and autocannon run as separate processes on
// 127.0.0.1. Options (env): BENCH_DURATION seconds per round (5), BENCH_ROUNDS (3).
//   --record  the latency `record` adds to `proxy` at c=10 (budget ≤ 10 %): the same GET and POST
//             through each, rounds alternating so a noisy machine's drift falls on both.
//   --replay  a recording of 10,000 exchanges: start to first answer (budget ≤ 1 s) and p50 of a
//             replayed request at 100 vs 10,000 exchanges (matching cost must not grow).
// Without a mode, both.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from './http.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const duration = Number(process.env.BENCH_DURATION ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
const bin = (name) => `${root}node_modules/.bin/${name}`;
const address = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const children = [];
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));



function autocannon(url, { method = 'GET', headers = {}, body } = {}) {
  const args = ['-c', String(CONNECTIONS), '-d', String(duration), '-j', '-m', method];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  if (body) args.push('-b', body);
  args.push(url);
  const report = JSON.parse(spawnSync(bin('autocannon'), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout);
  return { rps: Math.round(report.requests.average), mean: report.latency.average, p50: report.latency.p50, p99: report.latency.p99, non2xx: report.non2xx + report.errors };
}

function shipmock(args) {
  const child = spawn(process.execPath, [`${root}bin/shipmock.js`, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

/** CPU time (user + system) a process has used so far, in ms (Linux clock ticks of 10 ms). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function recordRun() {
  const upstreamPort = await freePort();
  shipmock(['serve', '--port', String(upstreamPort), '--log-level', 'warn', '--rate-limit', 'off']);
  const upstream = `http://127.0.0.1:${upstreamPort}`;
  const creds = JSON.parse(readFileSync(`${root}fixtures/credentials.json`, 'utf8')).companies[0];
  const basic = `Basic ${Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64')}`;
  await waitFor(`${upstream}/v1/carriers`, { headers: { Authorization: basic } });
  const post = async (path, auth, body) => (await fetch(upstream + path, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: auth }, body: JSON.stringify(body) })).json();
  const company = await post(`/v1/companies/${creds.companyId}/tokens`, basic, { grantType: 'client_credentials' });
  const account = await post('/v1/accounts', `Bearer ${company.accessToken}`, {
    company: { name: 'Bench GmbH', vatNumber: 'DE1', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
    contact: { name: 'Bench', email: 'bench@example.com', phone: '+49301234567' },
  });
  const auth = `Bearer ${(await post(`/v1/accounts/${account.id}/tokens`, basic, { grantType: 'client_credentials' })).accessToken}`;
  const created = await post('/v1/addresses', auth, address);

  const proxyPort = await freePort();
  const proxy = shipmock(['proxy', '--upstream', upstream, '--port', String(proxyPort), '--log-level', 'silent']);
  const out = mkdtempSync(join(tmpdir(), 'shipmock-bench-record-'));
  const recordPort = await freePort();
  const recorder = shipmock(['record', '--upstream', upstream, '--out', out, '--port', String(recordPort), '--log-level', 'silent']);
  const targets = { proxy: `http://127.0.0.1:${proxyPort}`, record: `http://127.0.0.1:${recordPort}` };
  const pids = { proxy: proxy.pid, record: recorder.pid };
  /** One autocannon run, and the CPU the proxying process spent per request during it (less sensitive to a loaded machine than latency). */
  const run = (name, url, init) => {
    const before = cpuMs(pids[name]);
    const result = autocannon(url, init);
    return { ...result, cpuPerRequestMs: (cpuMs(pids[name]) - before) / Math.max(1, result.rps * duration) };
  };
  for (const url of Object.values(targets)) await waitFor(`${url}/v1/carriers`, { headers: { Authorization: basic } });

  const rows = { proxy: { get: [], post: [] }, record: { get: [], post: [] } };
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 ? ['record', 'proxy'] : ['proxy', 'record']) {
      rows[name].get.push(run(name, `${targets[name]}/v1/addresses/${created.id}`, { headers: { Authorization: auth } }));
      rows[name].post.push(run(name, `${targets[name]}/v1/addresses`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify(address) }));
      process.stderr.write(`round ${round + 1}: ${name} done\n`);
    }
  }
  const closing = performance.now();
  recorder.kill('SIGTERM');
  await new Promise((resolve) => recorder.once('exit', resolve));
  console.log(`\nrecord: SIGTERM to exit (writing the folder) ${Math.round(performance.now() - closing)} ms`);
  rmSync(out, { recursive: true, force: true });

  console.log(`\n### record vs proxy, c=${CONNECTIONS}, ${rounds} rounds of ${duration} s each (medians)\n`);
  console.log('| request | proxy mean / p50 / p99 ms | record mean / p50 / p99 ms | proxy req/s | record req/s | latency added (mean) | CPU ms per request proxy / record |\n|---|---|---|---|---|---|---|');
  for (const kind of ['get', 'post']) {
    const p = rows.proxy[kind];
    const r = rows.record[kind];
    const pm = median(p.map((x) => x.mean));
    const rm = median(r.map((x) => x.mean));
    console.log(`| ${kind.toUpperCase()} | ${pm.toFixed(2)} / ${median(p.map((x) => x.p50))} / ${median(p.map((x) => x.p99))} | ${rm.toFixed(2)} / ${median(r.map((x) => x.p50))} / ${median(r.map((x) => x.p99))} | ${median(p.map((x) => x.rps))} | ${median(r.map((x) => x.rps))} | ${(((rm - pm) / pm) * 100).toFixed(1)} % | ${median(p.map((x) => x.cpuPerRequestMs)).toFixed(3)} / ${median(r.map((x) => x.cpuPerRequestMs)).toFixed(3)} |`);
  }
  for (const child of children.splice(0)) child.kill('SIGKILL');
}

/** A recording folder of `size` exchanges (distinct GETs of addresses), written by the converter record uses. */
async function recordingOf(size) {
  const { writeRecording } = await import(`${root}dist/record/recording-files.js`);
  const dir = mkdtempSync(join(tmpdir(), `shipmock-bench-replay-${size}-`));
  const exchanges = [];
  for (let i = 0; i < size; i++) {
    const id = `3f1c8a52-9d7e-4b21-8f43-${String(i).padStart(12, '0')}`;
    const body = Buffer.from(JSON.stringify({ id, ...address, createdAt: '2026-01-01T00:00:00.000Z' }));
    exchanges.push({
      request: { method: 'GET', url: `http://real.invalid/v1/addresses/${id}`, headers: { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig' } },
      response: { status: 200, headers: { 'Content-Type': 'application/json' }, body: body.toString('utf8') },
      verdict: { conforms: true, violations: [] },
      startedAt: '2026-01-01T00:00:00.000Z',
      durationMs: 1,
      operationId: 'getAddress',
    });
  }
  writeRecording(dir, exchanges);
  return dir;
}

async function replayRun() {
  const rows = [];
  for (const size of [100, 10_000]) {
    const dir = await recordingOf(size);
    const port = await freePort();
    const t0 = performance.now();
    const child = shipmock(['serve', '--port', String(port), '--log-level', 'warn', '--rate-limit', 'off', '--replay', dir, '--on-miss', 'fail']);
    const url = `http://127.0.0.1:${port}`;
    // Start = spawn to the first replayed answer.
    const first = `${url}/v1/addresses/3f1c8a52-9d7e-4b21-8f43-000000000000`;
    await waitFor(first);
    const startMs = performance.now() - t0;
    // Matching cost: a request that misses is hashed and looked up exactly like one that hits
    // (and each recorded answer is given once), so the misses measure the lookup at each size.
    const miss = autocannon(`${url}/v1/addresses/ffffffff-9d7e-4b21-8f43-000000000000`);
    rows.push({ size, startMs, miss });
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n### replay, c=${CONNECTIONS}, ${duration} s\n`);
  console.log('| recorded exchanges | start to first replayed answer ms | lookup+501 req/s | p50 / p99 ms |\n|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.size.toLocaleString('en')} | ${Math.round(r.startMs)} | ${r.miss.rps} | ${r.miss.p50} / ${r.miss.p99} |`);
  const { createReplayIndex } = await import(`${root}dist/replay/replay-index.js`);
  const { requestKey } = await import(`${root}dist/record/exchange-key.js`);
  console.log('\n| recorded exchanges | request key + index lookup µs (in process, 100,000 requests) |\n|---|---|');
  for (const size of [100, 10_000]) {
    const index = createReplayIndex();
    for (let i = 0; i < size; i++) index.add(requestKey({ method: 'GET', path: `/v1/addresses/${i}`, search: '' }), { status: 200, text: '{}' });
    const t = performance.now();
    for (let i = 0; i < 100_000; i++) if (!index.lookup(requestKey({ method: 'GET', path: `/v1/addresses/${i % size}`, search: '' }))) throw new Error('missed');
    console.log(`| ${size.toLocaleString('en')} | ${(((performance.now() - t) * 1000) / 100_000).toFixed(2)} |`);
  }
}

const all = !process.argv.includes('--record') && !process.argv.includes('--replay');
if (all || process.argv.includes('--record')) await recordRun();
if (all || process.argv.includes('--replay')) await replayRun();
process.exit(0);
