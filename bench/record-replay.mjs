#!/usr/bin/env node
// npm run bench:record-replay — the budgets of issue 26 for `shipmock record` and `serve --replay`
// (needs a build: npm run build). Every server and autocannon run as separate processes on
// 127.0.0.1. Options (env): BENCH_DURATION seconds per run (replay 5, record 2), BENCH_ROUNDS
// (replay 3, record 5), BENCH_KINDS (`get,post`: which requests --record sends), BENCH_CPU_PROF=DIR
// (proxy and record run with --cpu-prof, a profile per run written to DIR when it stops), BENCH_NODE_FLAGS
// (node flags for every shipmock process, e.g. --min-semi-space-size=16), BENCH_UPSTREAM_DELAY_MS
// (--record: the upstream behind bench/delay-proxy.mjs, each chunk held that long each way, as a
// real service is some distance away; default 0: on loopback, where the machine's CPU is the limit),
// BENCH_POST_BODIES (same: every POST alike, one request recorded as a sequence; distinct: each
// POST another name, each kept on its own).
// `--record --against DIR`: also `record` of another built checkout (its bin/ and dist/), in the same rounds.
//   --record  the latency `record` adds to `proxy` at c=10 (budget ≤ 10 %): the same GET and POST
//             through each, rounds alternating so a noisy machine's drift falls on both; each run
//             a fresh process after 3,000 requests of warm-up. One request is kept with at most
//             10,000 answers: a fast run goes past that and then measures dropping, not keeping;
//             the table also gives the median of the rounds whose recorder kept every exchange.
//   --replay  a recording of 10,000 exchanges: start to first answer (budget ≤ 1 s) and p50 of a
//             replayed request at 100 vs 10,000 exchanges (matching cost must not grow).
// Without a mode, both.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from './http.mjs';
import { newAccount } from './scale-out.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const recording = process.argv.includes('--record');
const duration = Number(process.env.BENCH_DURATION ?? (recording ? 2 : 5));
const rounds = Number(process.env.BENCH_ROUNDS ?? (recording ? 5 : 3));
const kinds = (process.env.BENCH_KINDS ?? 'get,post').split(',');
const cpuProf = process.env.BENCH_CPU_PROF;
const CONNECTIONS = 10;
const bin = (name) => `${root}node_modules/.bin/${name}`;
const address = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const children = [];
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));



function autocannon(url, { method = 'GET', headers = {}, body } = {}, length = ['-d', String(duration)]) {
  const args = ['-c', String(CONNECTIONS), ...length, '-j', '-m', method];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  if (body) args.push('-b', body, ...(body.includes('[<id>]') ? ['-I'] : []));
  args.push(url);
  const report = JSON.parse(spawnSync(bin('autocannon'), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout);
  return { requests: report.requests.total, rps: Math.round(report.requests.average), mean: report.latency.average, p50: report.latency.p50, p99: report.latency.p99, non2xx: report.non2xx + report.errors };
}

/** BENCH_NODE_FLAGS: node flags for every shipmock process (e.g. --min-semi-space-size=16, which NODE_OPTIONS refuses). */
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

function shipmock(args, nodeArgs = [], stdout = 'ignore', checkout = root) {
  const child = spawn(process.execPath, [...nodeFlags, ...nodeArgs, `${checkout}bin/shipmock.js`, ...args], { stdio: ['ignore', stdout, 'inherit'] });
  children.push(child);
  return child;
}

/**
 * bench/delay-proxy.mjs in a process of its own (this one blocks in spawnSync while autocannon
 * runs, so a proxy in it would forward nothing); resolves with its port.
 */
function delayProxyTo(port, delayMs) {
  const child = spawn(process.execPath, [`${root}bench/delay-proxy.mjs`, '--target', `127.0.0.1:${port}`, '--delay', String(delayMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /127\.0\.0\.1:(\d+) →/.exec(out);
      if (found) resolve(Number(found[1]));
    });
    child.once('exit', (code) => reject(new Error(`the delay proxy exited ${code}: ${out}`)));
  });
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
  const direct = `http://127.0.0.1:${upstreamPort}`;
  await waitFor(`${direct}/__admin/health`);
  const { auth, getPath } = await newAccount(direct, 'Bench GmbH');
  const delayMs = Number(process.env.BENCH_UPSTREAM_DELAY_MS ?? 0);
  const upstream = delayMs > 0 ? `http://127.0.0.1:${await delayProxyTo(upstreamPort, delayMs)}` : direct;

  // Each measured run is a fresh process (a fresh folder for record), warmed by WARMUP requests
  // first: a request is kept with at most 10,000 answers, so one long-lived recorder would
  // measure the cost of keeping in its first run and of checking only in the later ones. The
  // kept counts are printed: a run that kept fewer than it was sent measured partly the latter.
  const WARMUP = 3000;
  const againstAt = process.argv.indexOf('--against');
  const against = againstAt > 0 ? process.argv[againstAt + 1].replace(/\/?$/, '/') : undefined;
  const names = ['proxy', 'record', ...(against ? ['record@against'] : [])];
  const profiled = (name) => (cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf, '--cpu-prof-name', `${name}-${process.hrtime.bigint()}.cpuprofile`] : []);
  const requests = {
    get: (url) => [`${url}${getPath}`, { headers: { Authorization: auth } }],
    // BENCH_POST_BODIES=distinct: each POST names another person (autocannon's [<id>]), so each is
    // a request of its own, kept as one answer: no run reaches the 10,000 answers a request keeps.
    post: (url) => [`${url}/v1/addresses`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify(process.env.BENCH_POST_BODIES === 'distinct' ? { ...address, name: 'Erika [<id>]' } : address) }],
  };
  /** One measured run through a fresh `proxy` or `record`: latency, and the CPU the proxying process spent per request (less sensitive to a loaded machine than latency). */
  const run = async (name, kind) => {
    const port = await freePort();
    const out = mkdtempSync(join(tmpdir(), 'shipmock-bench-record-'));
    const args = name === 'proxy' ? ['proxy', '--upstream', upstream] : ['record', '--upstream', upstream, '--out', out];
    const child = shipmock([...args, '--port', String(port), '--log-level', 'silent'], profiled(name), 'pipe', name === 'record@against' ? against : root);
    let printed = '';
    child.stdout.on('data', (chunk) => (printed += chunk));
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/v1/carriers`);
    const [target, init] = requests[kind](url);
    autocannon(target, init, ['-a', String(WARMUP)]);
    const before = cpuMs(child.pid);
    const result = autocannon(target, init);
    const cpu = cpuMs(child.pid) - before;
    const closing = performance.now();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    const closeMs = performance.now() - closing;
    rmSync(out, { recursive: true, force: true });
    const kept = name !== 'proxy' ? Number(/(\d+) new exchange/.exec(printed)?.[1] ?? NaN) : undefined;
    return { ...result, cpuPerRequestMs: cpu / Math.max(1, result.requests), kept, closeMs };
  };

  const rows = Object.fromEntries(names.map((name) => [name, { get: [], post: [] }]));
  for (let round = 0; round < rounds; round++) {
    for (const kind of kinds) {
      // The order turns each round, so a drift of the machine's load falls on each in turn.
      const order = names.map((_, i) => names[(i + round) % names.length]);
      for (const name of order) rows[name][kind].push(await run(name, kind));
    }
    process.stderr.write(`round ${round + 1} of ${rounds} done\n`);
  }
  for (const name of names.slice(1)) {
    for (const kind of kinds) {
      const r = rows[name][kind];
      console.log(`${name} ${kind.toUpperCase()}: kept ${r.map((x) => x.kept).join(', ')} (sent about ${r.map((x) => x.requests + WARMUP).join(', ')}, warm-up included); SIGTERM to exit (writing the folder) ${r.map((x) => Math.round(x.closeMs)).join(', ')} ms`);
    }
  }

  console.log(`\n### record vs proxy, c=${CONNECTIONS}, ${rounds} rounds of ${duration} s each, a fresh process per run after ${WARMUP} requests of warm-up (medians)${delayMs ? `; upstream ${delayMs} ms away each way` : ''}${against ? `; record@against: ${against}` : ''}\n`);
  console.log('| request | through | mean / p50 / p99 ms | req/s | latency added to proxy (mean) | per round | added, rounds that kept every exchange (how many) | CPU ms per request |\n|---|---|---|---|---|---|---|---|');
  for (const kind of kinds) {
    const p = rows.proxy[kind];
    const pm = median(p.map((x) => x.mean));
    for (const name of names) {
      const r = rows[name][kind];
      const rm = median(r.map((x) => x.mean));
      const added = name === 'proxy' ? '' : `${(((rm - pm) / pm) * 100).toFixed(1)} %`;
      const perRound = name === 'proxy' ? '' : r.map((x, i) => `${(((x.mean - p[i].mean) / p[i].mean) * 100).toFixed(0)}`).join(', ');
      // Kept counts include the start check's GET /v1/carriers: a run that kept every exchange kept more than it sent.
      const full = name === 'proxy' ? [] : r.flatMap((x, i) => (x.kept > x.requests + WARMUP ? [((x.mean - p[i].mean) / p[i].mean) * 100] : []));
      const addedFull = name === 'proxy' ? '' : full.length ? `${median(full).toFixed(1)} % (${full.length})` : 'none (0)';
      console.log(`| ${kind.toUpperCase()} | ${name} | ${rm.toFixed(2)} / ${median(r.map((x) => x.p50))} / ${median(r.map((x) => x.p99))} | ${median(r.map((x) => x.rps))} | ${added} | ${perRound} | ${addedFull} | ${median(r.map((x) => x.cpuPerRequestMs)).toFixed(3)} |`);
    }
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
