#!/usr/bin/env node
// Where the CPU that `shipmock record` adds to `shipmock proxy` goes (issue 26), request by
// request: the same GET or POST at c=10 through a proxy and through a recorder (a fresh process
// each, fresh folder, after a warm-up), and only the measured window counted — not start, warm-up
// or the files written at close. Per request: the process's CPU (process.cpuUsage), the time and
// count of each kind of GC (perf_hooks 'gc' entries), and with BENCH_PROFILE=DIR also the CPU
// profile and the sampled allocations (inspector, objects collected since included) of the window,
// summarised side by side: self time and bytes allocated per request by function, record − proxy.
// Needs a build (npx tsc -b tsconfig.build.json). Runs each under the same load as
// bench/record-replay.mjs --record; put it under `flock /tmp/bench.lock`.
//
// Usage: node bench/record-profile.mjs [--against DIR] — DIR: another built checkout, whose recorder
// runs in the same rounds as `record@DIR`. Env: BENCH_DURATION (s, default 3), BENCH_ROUNDS (3),
// BENCH_KINDS (get,post), BENCH_PROFILE=DIR (profiles written there; slows every process alike),
// BENCH_RATE=N (proxy and recorders measured at once, N req/s each: a changing load falls on all alike).
import { fork, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from './http.mjs';
import { newAccount } from './scale-out.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], process.argv[5]);
else await parent();

/** One proxy or recorder in this process, told by the parent when the measured window starts and ends. */
async function child(name, checkout, upstream) {
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  const { Session } = await import('node:inspector/promises');
  const profileDir = process.env.BENCH_PROFILE;
  const out = mkdtempSync(join(tmpdir(), 'shipmock-record-profile-'));
  const running =
    name === 'proxy'
      ? await (await import(`${checkout}dist/proxy/validation-proxy.js`)).startValidationProxy({ upstream, port: 0 })
      : await (await import(`${checkout}dist/record/recorder.js`)).startRecorder({ upstream, out: join(out, 'folder'), port: 0 });
  const kinds = { [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak' };
  let gc;
  const observer = new PerformanceObserver((list) => {
    if (!gc) return;
    for (const entry of list.getEntries()) {
      const kind = kinds[entry.detail?.kind ?? entry.kind] ?? 'other';
      const row = (gc[kind] ??= { count: 0, ms: 0 });
      row.count++;
      row.ms += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const session = new Session();
  session.connect();
  let cpu;
  let heap;
  process.on('message', async (message) => {
    if (message === 'start') {
      if (profileDir) {
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 200 });
        await session.post('HeapProfiler.enable');
        await session.post('HeapProfiler.startSampling', { samplingInterval: 2048, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
        await session.post('Profiler.start');
      }
      gc = {};
      heap = process.memoryUsage();
      cpu = process.cpuUsage();
      process.send({ started: true });
    } else if (message === 'stop') {
      const used = process.cpuUsage(cpu);
      // The last GC entries of the window are delivered a moment later.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const after = process.memoryUsage();
      const result = { cpuUs: used.user + used.system, gc, heapGrowth: after.heapUsed - heap.heapUsed, rssGrowth: after.rss - heap.rss };
      gc = undefined;
      if (profileDir) {
        const { profile } = await session.post('Profiler.stop');
        const { profile: allocations } = await session.post('HeapProfiler.stopSampling');
        const stamp = `${name.replace(/\W/g, '_')}-${process.pid}`;
        writeFileSync(join(profileDir, `${stamp}.cpuprofile`), JSON.stringify(profile));
        writeFileSync(join(profileDir, `${stamp}.heapprofile`), JSON.stringify(allocations));
        result.profile = join(profileDir, stamp);
      }
      if (name !== 'proxy') result.kept = running.summary().added;
      process.send(result);
    }
  });
  process.send({ url: running.url });
  process.on('disconnect', () => {
    rmSync(out, { recursive: true, force: true });
    process.exit(0);
  });
}

async function parent() {
  const duration = Number(process.env.BENCH_DURATION ?? 3);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const kinds = (process.env.BENCH_KINDS ?? 'get,post').split(',');
  const profileDir = process.env.BENCH_PROFILE;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const againstAt = process.argv.indexOf('--against');
  const against = againstAt > 0 ? process.argv[againstAt + 1].replace(/\/?$/, '/') : undefined;
  const names = ['proxy', 'record', ...(against ? ['record@against'] : [])];
  const WARMUP = 3000;
  const CONNECTIONS = 10;
  const children = [];
  process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

  const upstreamPort = await freePort();
  children.push(spawn(process.execPath, [`${root}bin/shipmock.js`, 'serve', '--port', String(upstreamPort), '--log-level', 'warn', '--rate-limit', 'off'], { stdio: 'ignore' }));
  const upstream = `http://127.0.0.1:${upstreamPort}`;
  await waitFor(`${upstream}/__admin/health`);
  const { auth, getPath } = await newAccount(upstream, 'Bench GmbH');
  const address = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
  const requests = {
    get: (url) => [`${url}${getPath}`, {}],
    post: (url) => [`${url}/v1/addresses`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(address) }],
  };
  const autocannonArgs = (url, { method = 'GET', headers = {}, body }, length) => {
    const args = ['-c', String(CONNECTIONS), ...length, '-j', '-m', method, '-H', `Authorization=${auth}`];
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
    if (body) args.push('-b', body);
    return [...args, url];
  };
  const reportOf = (stdout) => {
    const report = JSON.parse(stdout);
    return { requests: report.requests.total, mean: report.latency.average, non2xx: report.non2xx + report.errors };
  };
  const autocannon = (url, init, length) => reportOf(spawnSync(`${root}node_modules/.bin/autocannon`, autocannonArgs(url, init, length), { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout);
  /** autocannon without blocking this process: several run at once. */
  const autocannonAsync = (url, init, length) =>
    new Promise((resolve) => {
      const proc = spawn(`${root}node_modules/.bin/autocannon`, autocannonArgs(url, init, length), { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      proc.stdout.on('data', (chunk) => (out += chunk));
      proc.on('exit', () => resolve(reportOf(out)));
    });
  const start = async (name) => {
    const proc = fork(fileURLToPath(import.meta.url), ['--child', name, name === 'record@against' ? against : root, upstream], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(proc);
    const next = () => new Promise((resolve) => proc.once('message', resolve));
    const { url } = await next();
    return { proc, next, url };
  };
  const finish = async ({ proc }) => {
    proc.disconnect();
    await new Promise((resolve) => proc.once('exit', resolve));
  };

  /** One measured run through a fresh proxy or recorder, alone on the machine's share of this bench: as many requests as c=10 gets answered. */
  const run = async (name, kind) => {
    const child = await start(name);
    const [target, init] = requests[kind](child.url);
    autocannon(target, init, ['-a', String(WARMUP)]);
    child.proc.send('start');
    await child.next();
    const load = autocannon(target, init, ['-d', String(duration)]);
    child.proc.send('stop');
    const result = await child.next();
    await finish(child);
    return { ...result, ...load };
  };

  /**
   * BENCH_RATE=N: the proxy and the recorders at once, each sent N requests a second (c=10) in the
   * same window, so that a machine whose load changes from second to second loads them alike:
   * their CPU per request is compared within one window.
   */
  const rate = Number(process.env.BENCH_RATE ?? 0);
  const runTogether = async (kind) => {
    const started = await Promise.all(names.map((name) => start(name)));
    for (const child of started) autocannon(...requests[kind](child.url), ['-a', String(WARMUP)]);
    for (const child of started) child.proc.send('start');
    await Promise.all(started.map((child) => child.next()));
    const loads = await Promise.all(started.map((child) => autocannonAsync(...requests[kind](child.url), ['-d', String(duration), '-R', String(rate)])));
    for (const child of started) child.proc.send('stop');
    const results = await Promise.all(started.map((child) => child.next()));
    await Promise.all(started.map(finish));
    return Object.fromEntries(names.map((name, i) => [name, { ...results[i], ...loads[i] }]));
  };

  const rows = Object.fromEntries(names.map((name) => [name, Object.fromEntries(kinds.map((kind) => [kind, []]))]));
  for (let round = 0; round < rounds; round++) {
    for (const kind of kinds) {
      if (rate) {
        const together = await runTogether(kind);
        for (const name of names) rows[name][kind].push(together[name]);
      } else for (const name of names.map((_, i) => names[(i + round) % names.length])) rows[name][kind].push(await run(name, kind));
    }
    process.stderr.write(`round ${round + 1} of ${rounds} done (load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})\n`);
  }

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const perRequest = (r, f) => f(r) / Math.max(1, r.requests);
  const gcUs = (r, kind) => ((r.gc[kind]?.ms ?? 0) * 1000) / Math.max(1, r.requests);
  const gcKinds = ['scavenge', 'mark-compact', 'incremental'];
  console.log(`\n### CPU per request in the measured window, c=${CONNECTIONS}${rate ? `, all at once at ${rate} req/s each` : ''}, ${rounds} rounds of ${duration} s (medians; per round in brackets)${against ? `; record@against: ${against}` : ''}\n`);
  console.log(`| request | through | CPU µs/req | added to proxy | GC µs/req (${gcKinds.join(' / ')}) | GCs per 1,000 req (${gcKinds.join(' / ')}) | mean latency ms | kept / sent |\n|---|---|---|---|---|---|---|---|`);
  for (const kind of kinds) {
    const proxyCpu = rows.proxy[kind].map((r) => perRequest(r, (x) => x.cpuUs));
    for (const name of names) {
      const rs = rows[name][kind];
      const cpu = rs.map((r) => perRequest(r, (x) => x.cpuUs));
      const added = name === 'proxy' ? '' : `${(median(cpu) - median(proxyCpu)).toFixed(1)} µs (${(((median(cpu) - median(proxyCpu)) / median(proxyCpu)) * 100).toFixed(1)} %) [${cpu.map((c, i) => (c - proxyCpu[i]).toFixed(0)).join(', ')}]`;
      const gcs = gcKinds.map((k) => median(rs.map((r) => gcUs(r, k))).toFixed(1)).join(' / ');
      const counts = gcKinds.map((k) => median(rs.map((r) => ((r.gc[k]?.count ?? 0) * 1000) / r.requests)).toFixed(1)).join(' / ');
      const kept = name === 'proxy' ? '' : `${median(rs.map((r) => r.kept))} / ${median(rs.map((r) => r.requests))}`;
      console.log(`| ${kind.toUpperCase()} | ${name} | ${median(cpu).toFixed(1)} [${cpu.map((c) => c.toFixed(0)).join(', ')}] | ${added} | ${gcs} | ${counts} | ${median(rs.map((r) => r.mean)).toFixed(2)} [${rs.map((r) => r.mean.toFixed(2)).join(', ')}] | ${kept} |`);
    }
  }
  if (profileDir) {
    for (const kind of kinds) for (const name of names.slice(1)) summariseProfiles(kind, name, rows.proxy[kind], rows[name][kind]);
  }
  process.exit(0);
}

/** Self time (µs) and sampled allocation (bytes) per request by function, summed over runs. */
function tally(runs) {
  const self = new Map();
  const bytes = new Map();
  let requests = 0;
  for (const run of runs) {
    requests += run.requests;
    const cpu = JSON.parse(readFileSync(`${run.profile}.cpuprofile`, 'utf8'));
    const nodes = new Map(cpu.nodes.map((n) => [n.id, n]));
    for (let i = 0; i < cpu.samples.length; i++) {
      const label = labelOf(nodes.get(cpu.samples[i]).callFrame);
      self.set(label, (self.get(label) ?? 0) + (cpu.timeDeltas[i] ?? 0));
    }
    const heap = JSON.parse(readFileSync(`${run.profile}.heapprofile`, 'utf8'));
    const walk = (node) => {
      const label = labelOf(node.callFrame);
      bytes.set(label, (bytes.get(label) ?? 0) + node.selfSize);
      node.children.forEach(walk);
    };
    walk(heap.head);
  }
  const per = (map) => new Map([...map].map(([k, v]) => [k, v / requests]));
  return { self: per(self), bytes: per(bytes) };
}

function labelOf(frame) {
  const file = frame.url ? frame.url.split('/').slice(-2).join('/') : '';
  return `${frame.functionName || '(anonymous)'}${file ? ` ${file}:${frame.lineNumber + 1}` : ''}`;
}

function summariseProfiles(kind, name, proxyRuns, recordRuns) {
  const p = tally(proxyRuns);
  const r = tally(recordRuns);
  const total = (m) => [...m.values()].reduce((a, b) => a + b, 0);
  const diff = (a, b) => {
    const keys = new Set([...a.keys(), ...b.keys()]);
    return [...keys].map((k) => [k, (b.get(k) ?? 0) - (a.get(k) ?? 0), b.get(k) ?? 0]).sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]));
  };
  const busy = (m) => total(m) - (m.get('(idle)') ?? 0);
  console.log(`\n#### ${kind.toUpperCase()} ${name} − proxy, profiled window: busy ${busy(r.self).toFixed(1)} − ${busy(p.self).toFixed(1)} µs/req, allocated ${(total(r.bytes) / 1024).toFixed(1)} − ${(total(p.bytes) / 1024).toFixed(1)} KiB/req`);
  console.log('\n| self µs/req added | in record | function |\n|---|---|---|');
  for (const [label, d, v] of diff(p.self, r.self).filter(([label]) => label !== '(idle)').slice(0, 25)) console.log(`| ${d.toFixed(2)} | ${v.toFixed(2)} | ${label.slice(0, 120)} |`);
  console.log('\n| bytes/req added | in record | allocated by |\n|---|---|---|');
  for (const [label, d, v] of diff(p.bytes, r.bytes).slice(0, 20)) console.log(`| ${d.toFixed(0)} | ${v.toFixed(0)} | ${label.slice(0, 120)} |`);
}
