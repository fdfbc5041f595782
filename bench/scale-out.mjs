// `npm run bench -- --scale-out [--processes 4] [--delays 0,1]`: issue 27's scale-out numbers.
// N separate `shipmock serve --data postgres://…` processes (own ports, so load is split by
// account) against 1 process at the same total concurrency, one account per connection group,
// GET and POST, with the database reached directly and through bench/delay-proxy.mjs (a delay
// each way, like a database in another zone; at real-time priority where allowed, and the delay
// it really held shown per run). Per run: req/s, p50/p99, and the batch counters of
// every process (GET /__admin/store/batches): requests per batch, lock wait and hold, and the
// serial fraction with its Amdahl projection (docs/scaling.md). BENCH_RATE_LIMIT: the processes'
// --rate-limit (default 1000000000/60s: counted, never reached; `off` counts nothing). BENCH_WARMUP: seconds of
// unmeasured load on every process before each request kind's runs, and of the same load before each measured run
// (default 3; 0 measures cold processes, straight after the run before). BENCH_ROUNDS: rounds of the three runs
// (default 1); with more, each configuration's median run is shown, and every round's ratio.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fetchAgain, freePort } from './http.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const address = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };


/** A `shipmock serve` process on its own port, answering its health check (within `timeoutMs`). */
export async function startServe(extra, timeoutMs = 60_000) {
  const port = await freePort();
  const child = spawn(process.execPath, [`${root}bin/shipmock.js`, 'serve', '--port', String(port), '--log-level', 'warn', '--rate-limit', process.env.BENCH_RATE_LIMIT ?? '1000000000/60s', ...extra], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (const started = performance.now(); ; ) {
    const ok = await fetch(`${url}/__admin/health`).then((res) => res.ok, () => false);
    if (ok) break;
    if (performance.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`${url} did not start within ${timeoutMs / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, child, stop: () => child.kill('SIGKILL') };
}


async function postJson(url, auth, body) {
  const res = await fetchAgain(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: auth }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A new account of the fixture company with an Account token and one address to GET. */
export async function newAccount(url, name) {
  const creds = JSON.parse(readFileSync(`${root}fixtures/credentials.json`, 'utf8')).companies[0];
  const basic = `Basic ${Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64')}`;
  const company = await postJson(`${url}/v1/companies/${creds.companyId}/tokens`, basic, { grantType: 'client_credentials' });
  const account = await postJson(`${url}/v1/accounts`, `Bearer ${company.accessToken}`, {
    company: { name, vatNumber: 'DE1', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
    contact: { name, email: 'bench@example.com', phone: '+49301234567' },
  });
  const token = await postJson(`${url}/v1/accounts/${account.id}/tokens`, basic, { grantType: 'client_credentials' });
  const auth = `Bearer ${token.accessToken}`;
  const created = await postJson(`${url}/v1/addresses`, auth, address);
  return { auth, getPath: `/v1/addresses/${created.id}` };
}

/**
 * How the delay proxy is started: at real-time priority (`chrt -f`) where this user may, so that
 * it holds chunks as a network would, without waiting for the CPU behind the processes it
 * delays. At normal priority on this 2-core machine its holds grew with the load it carried
 * (1.13 ms each way, mean, behind one process; 1.23–1.25 ms behind four: docs/scaling.md).
 */
export function proxyPriority() {
  const probe = spawnSync('chrt', ['-f', '10', 'true']);
  return probe.status === 0 ? { prefix: ['chrt', '-f', '10'], label: 'real-time (chrt -f 10)' } : { prefix: [], label: 'normal (chrt -f not allowed here: its holds grow with the load)' };
}

/**
 * bench/delay-proxy.mjs in a process of its own (the bench's own event loop is blocked while
 * autocannon runs): resolves with its port, the URL of its counters and its pid once it listens.
 */
export function spawnDelayProxy(targetPort, delayMs, priority) {
  const [command, ...args] = [...priority.prefix, process.execPath, `${root}bench/delay-proxy.mjs`, '--target', `127.0.0.1:${targetPort}`, '--delay', String(delayMs)];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (line) => {
      const [, port, counters] = /127\.0\.0\.1:(\d+) .*counters (\S+)/.exec(String(line));
      resolve({ port: Number(port), counters, pid: child.pid, stop: () => child.kill('SIGKILL') });
    });
    child.once('exit', (code) => reject(new Error(`delay proxy exited (${code})`)));
  });
}

/** Median ms of `SELECT 1` on a fresh connection to `url`: what a round trip to the database costs. */
async function databaseRoundTripMs(url) {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const times = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    await client.query('SELECT 1');
    times.push(performance.now() - started);
  }
  await client.end();
  return times.sort((a, b) => a - b)[25];
}

/**
 * One measured run (bench/load-groups.mjs): group g hits `targets[g]` as account g,
 * `connections / groups` connections each; with the batch counters of every process over it.
 */
function measuredRun(servers, kind, targets, accounts, { connections, duration, proxy }) {
  const groups = accounts.map((account, g) => {
    const common = { connections: Math.max(1, Math.round(connections / accounts.length)), headers: { Authorization: account.auth } };
    if (kind === 'GET') return { ...common, url: targets[g].url + account.getPath, method: 'GET' };
    return { ...common, url: `${targets[g].url}/v1/addresses`, method: 'POST', headers: { ...common.headers, 'Content-Type': 'application/json' }, body: JSON.stringify(address) };
  });
  const counters = [...servers.map((server) => `${server.url}/__admin/store/batches`), ...(proxy ? [proxy.counters] : [])];
  const out = spawnSync(process.execPath, [`${root}bench/load-groups.mjs`, JSON.stringify({ duration, groups, counters })], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.status !== 0) throw new Error(`load-groups failed: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

/**
 * A measured run after `options.warmup` seconds of the same load, unmeasured: throughput once the
 * load has settled. The first seconds of a load are slower, and by more on processes that sat
 * idle just before (the three left out of the one-process run): measured straight after it, the
 * four processes' GET through a 1 ms delay was 5,485 and 5,553 req/s, and the same load at once
 * again 5,860 and 5,948 (docs/scaling.md).
 */
function steadyRun(servers, kind, targets, accounts, options) {
  if (options.warmup > 0) measuredRun(servers, kind, targets, accounts, { ...options, duration: options.warmup });
  return measuredRun(servers, kind, targets, accounts, options);
}

/** The shipmock processes on one database; `accounts` of them set up on the first. */
async function startCluster(databaseUrl, processes, accounts) {
  const servers = await Promise.all(Array.from({ length: processes }, () => startServe(['--data', databaseUrl])));
  const made = [];
  for (let g = 0; g < accounts; g++) made.push(await newAccount(servers[0].url, `Bench ${g + 1}`));
  return { servers, accounts: made };
}

/**
 * The serial fraction s: the time per request in critical sections that span accounts
 * (`serialMs`, timed by PostgreSQL around the exact statements: wide batches holding the wide
 * lock, other commits holding the head row from taking their change number to COMMIT done) over
 * one process's time per request (1 / its req/s); Amdahl then bounds N processes on N cores at
 * 1 / (s + (1 − s) / N) times one process (projection).
 */
export function serialFraction(run, oneProcessRps) {
  const holdPerRequestMs = run.serialMs / Math.max(1, run.members);
  // Above 1: the lock holds each request longer than a process needs for it (the lock is the bottleneck).
  const s = (holdPerRequestMs * oneProcessRps) / 1000;
  const amdahl = (n) => 1 / (Math.min(1, s) + (1 - Math.min(1, s)) / n);
  return { holdPerRequestMs, s, lockBusy: run.serialMs / run.wallMs, projection: [4, 16, 64].map((n) => [n, amdahl(n)]) };
}

/**
 * Of several rounds, each configuration's run with the median req/s (its counters with it). A
 * single five-second run's ratio scattered 0.86–0.99 on this machine (docs/scaling.md).
 */
export function medianRuns(rounds) {
  const median = (key) => rounds.map((round) => round[key]).sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)];
  return { one: median('one'), many: median('many'), oneAccount: median('oneAccount') };
}

async function runAtDelay(cluster, delayMs, scaleOut) {
  const proxy = delayMs > 0 ? await spawnDelayProxy(cluster.port, delayMs, scaleOut.proxyPriority) : undefined;
  // Each run reads the proxy's counters with the processes': the delay it really got.
  const options = { ...scaleOut, proxy };
  const direct = await cluster.createDatabase();
  const url = proxy ? direct.replace(`:${cluster.port}/`, `:${proxy.port}/`) : direct;
  const roundTripMs = await databaseRoundTripMs(url);
  const { servers, accounts } = await startCluster(url, options.processes, options.processes);
  const rows = [];
  try {
    for (const kind of ['GET', 'POST']) {
      // Every process warm first: measured cold, the processes that sat idle through the one-process
      // run spent the first seconds of the next compiling (TurboFan, on V8's helper threads: a third
      // of a core each) while the one warm process did not, which is not what scale-out costs.
      if (options.warmup > 0) {
        process.stderr.write(`delay ${delayMs} ms, ${kind}: warming every process for ${options.warmup} s…\n`);
        measuredRun(servers, kind, servers, accounts, { ...options, duration: options.warmup });
      }
      const rounds = [];
      for (let round = 1; round <= options.rounds; round++) {
        process.stderr.write(`delay ${delayMs} ms, ${kind}, round ${round} of ${options.rounds}: 1 process, ${options.processes} processes, ${options.processes} processes on one account…\n`);
        const one = steadyRun(servers, kind, accounts.map(() => servers[0]), accounts, options);
        const many = steadyRun(servers, kind, servers, accounts, options);
        const oneAccount = steadyRun(servers, kind, servers, accounts.map(() => accounts[0]), options);
        rounds.push({ one, many, oneAccount });
      }
      rows.push({ delayMs, roundTripMs, kind, ...medianRuns(rounds), ratios: rounds.map((round) => round.many.rps / round.one.rps) });
    }
  } finally {
    for (const server of servers) server.stop();
    proxy?.stop();
  }
  return rows;
}

const fmt = (n, digits = 2) => Number(n).toFixed(digits);

function printRows(rows, options) {
  const procs = options.processes;
  if (rows.some((r) => r.delayMs > 0)) console.log(`\nThe delay proxy ran at ${options.proxyPriority.label} priority; "held" is the mean time it really held a chunk, each way.`);
  console.log(`\n| delay each way | request | processes × accounts | req/s | p50 / p99 ms | non-2xx | held ms | requests per batch | lock wait ms per batch | lock hold ms per batch | lock wait / hold ms per request (amortised) | read batches (committed / run again) | serial ms per request |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|`);
  for (const r of rows) {
    for (const [label, run] of [[`1 × ${procs}`, r.one], [`${procs} × ${procs}`, r.many], [`${procs} × 1`, r.oneAccount]]) {
      const perBatch = (value) => fmt(value / Math.max(1, run.batches));
      console.log(`| ${r.delayMs} ms (SELECT 1: ${fmt(r.roundTripMs)} ms) | ${r.kind} | ${label} | ${run.rps} | ${run.p50} / ${run.p99} | ${run.non2xx} | ${run.proxyChunks ? fmt(run.proxyHeldMs / run.proxyChunks, 3) : '–'} | ${perBatch(run.members)} | ${perBatch(run.lockWaitMs)} | ${perBatch(run.lockHoldMs)} | ${fmt(run.lockWaitMs / Math.max(1, run.members), 3)} / ${fmt(run.lockHoldMs / Math.max(1, run.members), 3)} | ${run['reads.batches'] ?? 0} (${run['reads.committed'] ?? 0} / ${run['reads.retried'] ?? 0}) | ${fmt(run.serialMs / Math.max(1, run.members), 4)} |`);
    }
  }
  console.log(`\n| delay each way | request | ${procs}-proc / 1-proc req/s${options.rounds > 1 ? ' (medians)' : ''} | each round | lock busy (share of wall time held, ${procs} procs) | serial fraction s | Amdahl projection at 4 / 16 / 64 processes (× one process) |\n|---|---|---|---|---|---|---|`);
  for (const r of rows) {
    const serial = serialFraction(r.many, r.one.rps);
    console.log(`| ${r.delayMs} ms | ${r.kind} | ${fmt(r.many.rps / r.one.rps)} | ${r.ratios.map((ratio) => fmt(ratio)).join(', ')} | ${fmt(serial.lockBusy)} | ${fmt(serial.s)} | ${serial.projection.map(([, x]) => fmt(x)).join(' / ')} (projection) |`);
  }
}

/** --scale-out: a throwaway PostgreSQL; each delay gets a fresh database and fresh processes. */
export async function scaleOutRun(scaleOut) {
  const options = { ...scaleOut, proxyPriority: proxyPriority() };
  const { startThrowawayPostgres } = await import('../scripts/throwaway-postgres.mjs');
  const cluster = await startThrowawayPostgres();
  const rows = [];
  try {
    for (const delayMs of options.delays) rows.push(...(await runAtDelay(cluster, delayMs, options)));
  } finally {
    cluster.stop();
  }
  printRows(rows, options);
}
