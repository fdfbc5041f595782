#!/usr/bin/env node
// node bench/shared-cache-rss.mjs (after npm run build) — issue 27, a bounded working set in a
// shared sandbox: RSS of each fresh process (default --cache-size, or BENCH_CACHE) on a store
// holding 10k and 200k inline bookings, 100 per account, with the p50/p99 of a list over a hot set
// of accounts and the first request of an account that is not in memory (read whole by its
// batch's pull); RSS right after that load, SETTLE ms later, and after a full garbage collection
// (bench/gc-on-signal.mjs: what the process keeps, without the garbage V8 has not collected yet).
// BENCH_BACKEND: postgres (default: one `shipmock serve --data postgres://…` process on a
// throwaway cluster, scripts/throwaway-postgres.mjs) or sqlite (`--workers BENCH_WORKERS (2)
// --data FILE`: SQLite's shared layout, each worker measured). The companion of
// bench/cache-rss.mjs (one process on a SQLite file of its own).
//
// Seeding: TEMPLATE_ACCOUNTS (10) accounts of BENCH_PER_ACCOUNT (100) inline bookings are made
// through the API once; every other account is a copy of a template account's rows under a new
// account id, made in SQL as ONE commit (one change number: what a pull sees of it is what a
// commit of those rows would give), with the account added to the company and to the global
// account owners, and two issued tracking numbers per booking, as the API would have made them.
// Sizes grow in order on one store (BENCH_SIZES, default 10000,200000); each is measured on
// fresh processes.
// Options (env): BENCH_BACKEND, BENCH_WORKERS, BENCH_SIZES, BENCH_PER_ACCOUNT, BENCH_CACHE, BENCH_HOT (50), BENCH_COLD (20), BENCH_SETTLE_MS (10000),
// BENCH_EXPORT=1 (last, an export read to its end: its size, time and the RSS peak while it streams).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { startThrowawayPostgres } from '../scripts/throwaway-postgres.mjs';
import { ACCOUNT_BODY, accountAuth, berlin, call, inParallel, munich, serve as serveChild } from './serve-child.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const sizes = (process.env.BENCH_SIZES ?? '10000,200000').split(',').map(Number);
const perAccount = Number(process.env.BENCH_PER_ACCOUNT ?? 100);
const templates = Number(process.env.TEMPLATE_ACCOUNTS ?? 10);
const hot = Number(process.env.BENCH_HOT ?? 50);
const coldCount = Number(process.env.BENCH_COLD ?? 20);
const settleMs = Number(process.env.BENCH_SETTLE_MS ?? 10_000);
const cacheFlags = process.env.BENCH_CACHE ? ['--cache-size', process.env.BENCH_CACHE] : [];
const exporting = process.env.BENCH_EXPORT === '1';
const backend = process.env.BENCH_BACKEND ?? 'postgres';
const workers = Number(process.env.BENCH_WORKERS ?? 2);
if (backend !== 'postgres' && backend !== 'sqlite') throw new Error(`BENCH_BACKEND is postgres or sqlite, not ${backend}`);
/** A mock on the store at `target` (a database URL, a file). */
const serve = (target, flags = []) => serveChild(root, [...(backend === 'sqlite' ? ['--workers', String(workers)] : []), '--data', target, ...flags]);
/** The processes that serve (and hold state): the workers of `--workers N`, else the one process. */
const servingPids = (mock) => (backend === 'sqlite' ? mock.workerPids() : [mock.child.pid]);

/** The template: `templates` accounts of `perAccount` inline bookings, through the API. */
async function seedTemplate(url) {
  const mock = await serve(url);
  try {
    const company = `Bearer ${(await call(mock, 'POST', `/v1/companies/${mock.companyId}/tokens`, { auth: mock.basic, body: { grantType: 'client_credentials' } })).accessToken}`;
    const { catalogueIds } = await import(`${root}dist/carrier-catalogue/load-catalogue.js`);
    const started = performance.now();
    for (let a = 0; a < templates; a++) {
      const account = await call(mock, 'POST', '/v1/accounts', { auth: company, body: ACCOUNT_BODY });
      const auth = await accountAuth(mock, account.id);
      const carrier = await call(mock, 'POST', '/v1/carrier-definitions', { auth, body: { carrierId: catalogueIds.carrier('DHL_PARCEL'), name: 'DHL' } });
      const service = await call(mock, 'POST', '/v1/service-definitions', { auth, body: { carrierDefinitionId: carrier.id, serviceId: catalogueIds.service('DHL_PARCEL', 'DHL_PAKET'), name: 'Paket' } });
      const channel = await call(mock, 'POST', '/v1/shipment-channels', { auth, body: { name: 'ZPL', documentRendering: { labelFormat: 'ZPL', labelSize: 'LABEL_4X6' } } });
      await inParallel(perAccount, 8, (i) =>
        call(mock, 'POST', '/v1/shipment-bookings/inline', { auth, body: { serviceDefinitionId: service.id, shipmentChannelId: channel.id, sender: berlin, receiver: { ...munich, name: `Receiver ${i}` }, parcels: [{ weight: 1 + (i % 5) }], reference: `R-${a}-${i}` } }),
      );
    }
    console.log(`template: ${templates} accounts × ${perAccount} inline bookings through the API in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return mock.companyId;
  } finally {
    await mock.stop();
  }
}

/** Copies template accounts (in SQL, one commit) until the database holds `accounts` accounts. */
async function growPostgres(url, companyId, accounts) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const companyScope = `company:${companyId}`;
    const sources = (await db.query("SELECT DISTINCT scope FROM shipmock_collections WHERE scope LIKE 'account:%' ORDER BY scope LIMIT $1", [templates])).rows.map((row) => row.scope);
    const have = Number((await db.query("SELECT count(DISTINCT scope) AS n FROM shipmock_collections WHERE scope LIKE 'account:%'")).rows[0].n);
    if (have >= accounts) return;
    const numbers = Number((await db.query("SELECT count(*) AS n FROM shipmock_items WHERE scope = 'global' AND collection = 'issued-carrier-numbers'")).rows[0].n);
    const numbersPerAccount = Math.round(numbers / have);
    const started = performance.now();
    await db.query('BEGIN');
    await db.query('CREATE TEMP TABLE growth (i int, id text, src text) ON COMMIT DROP');
    await db.query('INSERT INTO growth SELECT g, gen_random_uuid()::text, ($1::text[])[(g % $2) + 1] FROM generate_series($3::int, $4::int) AS g', [sources, sources.length, have, accounts - 1]);
    const change = Number((await db.query('UPDATE shipmock_head SET change = change + 1 RETURNING change')).rows[0].change);
    await db.query("INSERT INTO shipmock_items (scope, collection, seq, id, body, change) SELECT 'account:' || g.id, t.collection, t.seq, t.id, t.body, $1 FROM growth g JOIN shipmock_items t ON t.scope = g.src", [change]);
    await db.query("INSERT INTO shipmock_collections (scope, collection, next_seq, change) SELECT 'account:' || g.id, t.collection, t.next_seq, $1 FROM growth g JOIN shipmock_collections t ON t.scope = g.src", [change]);
    await db.query("INSERT INTO shipmock_values (scope, key, value, change) SELECT 'account:' || g.id, t.key, t.value, $1 FROM growth g JOIN shipmock_values t ON t.scope = g.src", [change]);
    // The accounts in their company, and their owners (tokens are issued through them).
    const nextOf = async (scope, collection) => Number((await db.query('SELECT next_seq FROM shipmock_collections WHERE scope = $1 AND collection = $2', [scope, collection])).rows[0].next_seq);
    const accountsSeq = await nextOf(companyScope, 'accounts');
    await db.query(
      `INSERT INTO shipmock_items (scope, collection, seq, id, body, change)
       SELECT $1, 'accounts', $2 + g.i - $3, g.id, jsonb_set(t.body::jsonb, '{id}', to_jsonb(g.id))::text, $4
       FROM growth g JOIN shipmock_items t ON t.scope = $1 AND t.collection = 'accounts' AND t.id = substr(g.src, 9)`,
      [companyScope, accountsSeq, have, change],
    );
    await db.query("UPDATE shipmock_collections SET next_seq = $1, change = $2 WHERE scope = $3 AND collection = 'accounts'", [accountsSeq + accounts - have, change, companyScope]);
    const ownersSeq = await nextOf('global', 'account-owners');
    await db.query(
      "INSERT INTO shipmock_items (scope, collection, seq, id, body, change) SELECT 'global', 'account-owners', $1 + g.i - $2, g.id, json_build_object('id', g.id, 'companyId', $3::text)::text, $4 FROM growth g",
      [ownersSeq, have, companyId, change],
    );
    await db.query("UPDATE shipmock_collections SET next_seq = $1, change = $2 WHERE scope = 'global' AND collection = 'account-owners'", [ownersSeq + accounts - have, change]);
    const numbersSeq = await nextOf('global', 'issued-carrier-numbers');
    await db.query(
      `INSERT INTO shipmock_items (scope, collection, seq, id, body, change)
       SELECT 'global', 'issued-carrier-numbers', $1 + (g.i - $2) * $3 + n, number, json_build_object('id', number)::text, $4
       FROM growth g, generate_series(0, $3 - 1) AS n, LATERAL (SELECT 'DHL_PARCEL:STAGING:9' || lpad(g.i::text, 5, '0') || lpad(n::text, 6, '0') AS number) AS issued`,
      [numbersSeq, have, numbersPerAccount, change],
    );
    await db.query("UPDATE shipmock_collections SET next_seq = $1, change = $2 WHERE scope = 'global' AND collection = 'issued-carrier-numbers'", [numbersSeq + (accounts - have) * numbersPerAccount, change]);
    await db.query('COMMIT');
    await db.query('VACUUM ANALYZE');
    const size = (await db.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n;
    console.log(`grew to ${accounts} accounts in ${((performance.now() - started) / 1000).toFixed(1)} s; database ${(Number(size) / 1e6).toFixed(0)} MB`);
  } finally {
    await db.end();
  }
}

/** What growPostgres does, on a shared SQLite file (no mock running on it). */
function growSqlite(file, companyId, accounts) {
  const db = new Database(file);
  try {
    const companyScope = `company:${companyId}`;
    const sources = db.prepare("SELECT DISTINCT scope FROM shipmock_collections WHERE scope LIKE 'account:%' ORDER BY scope LIMIT ?").pluck().all(templates);
    const have = db.prepare("SELECT count(DISTINCT scope) FROM shipmock_collections WHERE scope LIKE 'account:%'").pluck().get();
    if (have >= accounts) return;
    const numbers = db.prepare("SELECT count(*) FROM shipmock_items WHERE scope = 'global' AND collection = 'issued-carrier-numbers'").pluck().get();
    const numbersPerAccount = Math.round(numbers / have);
    const started = performance.now();
    const nextOf = (scope, collection) => db.prepare('SELECT next_seq FROM shipmock_collections WHERE scope = ? AND collection = ?').pluck().get(scope, collection);
    const copyItems = db.prepare('INSERT INTO shipmock_items (scope, collection, seq, id, body, change) SELECT ?, collection, seq, id, body, ? FROM shipmock_items WHERE scope = ?');
    const copyCollections = db.prepare('INSERT INTO shipmock_collections (scope, collection, next_seq, change) SELECT ?, collection, next_seq, ? FROM shipmock_collections WHERE scope = ?');
    const copyValues = db.prepare('INSERT INTO shipmock_values (scope, key, value, change) SELECT ?, key, value, ? FROM shipmock_values WHERE scope = ?');
    const accountOf = db.prepare("SELECT body FROM shipmock_items WHERE scope = ? AND collection = 'accounts' AND id = ?").pluck();
    const insert = db.prepare('INSERT INTO shipmock_items (scope, collection, seq, id, body, change) VALUES (?, ?, ?, ?, ?, ?)');
    const setNext = db.prepare('UPDATE shipmock_collections SET next_seq = ?, change = ? WHERE scope = ? AND collection = ?');
    db.transaction(() => {
      const change = db.prepare("UPDATE shipmock_counters SET value = value + 1 WHERE name = 'change' RETURNING value").pluck().get();
      const accountsSeq = nextOf(companyScope, 'accounts');
      const ownersSeq = nextOf('global', 'account-owners');
      const numbersSeq = nextOf('global', 'issued-carrier-numbers');
      for (let i = have; i < accounts; i++) {
        const id = randomUUID();
        const source = sources[i % sources.length];
        for (const copy of [copyItems, copyCollections, copyValues]) copy.run(`account:${id}`, change, source);
        insert.run(companyScope, 'accounts', accountsSeq + i - have, id, JSON.stringify({ ...JSON.parse(accountOf.get(companyScope, source.slice('account:'.length))), id }), change);
        insert.run('global', 'account-owners', ownersSeq + i - have, id, JSON.stringify({ id, companyId }), change);
        for (let n = 0; n < numbersPerAccount; n++) {
          const number = `DHL_PARCEL:STAGING:9${String(i).padStart(5, '0')}${String(n).padStart(6, '0')}`;
          insert.run('global', 'issued-carrier-numbers', numbersSeq + (i - have) * numbersPerAccount + n, number, JSON.stringify({ id: number }), change);
        }
      }
      setNext.run(accountsSeq + accounts - have, change, companyScope, 'accounts');
      setNext.run(ownersSeq + accounts - have, change, 'global', 'account-owners');
      setNext.run(numbersSeq + (accounts - have) * numbersPerAccount, change, 'global', 'issued-carrier-numbers');
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    console.log(`grew to ${accounts} accounts in ${((performance.now() - started) / 1000).toFixed(1)} s; file ${(statSync(file).size / 1e6).toFixed(0)} MB`);
  } finally {
    db.close();
  }
}

const grow = (target, companyId, accounts) => (backend === 'sqlite' ? growSqlite(target, companyId, accounts) : growPostgres(target, companyId, accounts));

/** The company's accounts, in the order they were made. */
async function accountIds(target, companyId) {
  const scope = `company:${companyId}`;
  if (backend === 'sqlite') {
    const db = new Database(target, { readonly: true });
    try {
      return db.prepare("SELECT id FROM shipmock_items WHERE scope = ? AND collection = 'accounts' AND body IS NOT NULL ORDER BY seq").pluck().all(scope);
    } finally {
      db.close();
    }
  }
  const db = new pg.Client({ connectionString: target });
  await db.connect();
  try {
    return (await db.query("SELECT id FROM shipmock_items WHERE scope = $1 AND collection = 'accounts' AND body IS NOT NULL ORDER BY seq", [scope])).rows.map((row) => row.id);
  } finally {
    await db.end();
  }
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

/** GET /__admin/state read to its end (and dropped) while RSS is sampled every 50 ms: the export's size, time and the highest RSS of a process serving. */
async function exportPeak(mock, pids) {
  const highest = () => Math.max(...pids.map(rssMb));
  let peak = highest();
  const sampler = setInterval(() => (peak = Math.max(peak, highest())), 50);
  const started = performance.now();
  try {
    const res = await fetch(`${mock.url}/__admin/state`, { headers: { 'X-Shipmock-Admin': '1' } });
    if (res.status !== 200) throw new Error(`GET /__admin/state: ${res.status} ${await res.text()}`);
    let bytes = 0;
    for await (const chunk of res.body) bytes += chunk.length;
    return { mb: bytes / 1e6, seconds: (performance.now() - started) / 1000, peak };
  } finally {
    clearInterval(sampler);
  }
}

/** Each serving process's RSS in MB, in pid order. */
const rssOf = (pids) => pids.map(rssMb);

async function measure(target, size) {
  const mock = await serve(target, cacheFlags);
  try {
    // The workers of --workers N start at their own pace: wait until all of them are up.
    while (backend === 'sqlite' && mock.workerPids().length < workers) await new Promise((resolve) => setTimeout(resolve, 100));
    const pids = servingPids(mock);
    const afterStart = rssOf(pids);
    const ids = await accountIds(target, mock.companyId);
    if (ids.length < hot + coldCount) throw new Error(`${size} bookings make ${ids.length} accounts: BENCH_HOT (${hot}) + BENCH_COLD (${coldCount}) need at least that many`);
    const auths = new Map();
    for (const id of ids.slice(0, hot + coldCount)) auths.set(id, await accountAuth(mock, id));
    const hotIds = ids.slice(0, hot);
    const list = [];
    await inParallel(hot * 40, 10, async (i) => {
      const started = performance.now();
      await call(mock, 'GET', '/v1/shipment-bookings?limit=20', { auth: auths.get(hotIds[i % hotIds.length]) });
      list.push(performance.now() - started);
    });
    const cold = [];
    for (const id of ids.slice(hot, hot + coldCount)) {
      const started = performance.now();
      await call(mock, 'GET', '/v1/shipment-bookings?limit=20', { auth: auths.get(id) });
      cold.push(performance.now() - started);
    }
    const rss = rssOf(pids);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const settled = rssOf(pids);
    const heaps = [];
    for (const pid of pids) heaps.push(await mock.fullGc(pid));
    const kept = rssOf(pids);
    const exported = exporting ? await exportPeak(mock, pids) : undefined;
    const mb = (bytes) => bytes / 2 ** 20;
    return { size, accounts: ids.length, startMs: mock.startMs, afterStart, rss, settled, kept, exported, heap: heaps.map((h) => mb(h.heapUsed)), heapTotal: heaps.map((h) => mb(h.heapTotal)), p50: percentile(list, 50), p99: percentile(list, 99), coldP50: percentile(cold, 50), coldMax: Math.max(...cold) };
  } finally {
    await mock.stop();
  }
}

/** A throwaway store: a PostgreSQL database on a cluster of its own, or a fresh SQLite file. */
async function throwawayStore() {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-shared-rss-'));
    return { target: join(dir, 'shared.db'), stop: () => rmSync(dir, { recursive: true, force: true }) };
  }
  const cluster = await startThrowawayPostgres();
  return { target: await cluster.createDatabase(), stop: () => cluster.stop() };
}

const store = await throwawayStore();
try {
  const companyId = await seedTemplate(store.target);
  const rows = [];
  for (const size of sizes) {
    await grow(store.target, companyId, size / perAccount);
    rows.push(await measure(store.target, size));
  }
  const each = (values, digits = 0) => values.map((value) => value.toFixed(digits)).join(' · ');
  const processes = backend === 'sqlite' ? `--workers ${workers} --data FILE (SQLite's shared layout; each worker's numbers, joined by ·)` : 'one process, --data postgres://…';
  console.log(`\n${processes}, ${cacheFlags.length ? cacheFlags.join(' ') : 'default --cache-size'}; ${perAccount} inline bookings per account, trackers pending; list = GET /v1/shipment-bookings?limit=20 over ${hot} accounts at c=10\n`);
  console.log(`| bookings | accounts | start s | RSS after start MB | RSS after load MB | RSS ${settleMs / 1000} s later MB | RSS after a full GC MB (main thread's heap used / total) | list p50 / p99 ms | cold first request p50 / max ms |`);
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.size.toLocaleString('en')} | ${r.accounts} | ${(r.startMs / 1000).toFixed(1)} | ${each(r.afterStart)} | ${each(r.rss)} | ${each(r.settled)} | ${each(r.kept)} (${each(r.heap)} / ${each(r.heapTotal)}) | ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} | ${r.coldP50.toFixed(1)} / ${r.coldMax.toFixed(1)} |`);
  }
  if (exporting) for (const r of rows) console.log(`export at ${r.size.toLocaleString('en')} bookings (GET /__admin/state, after the rest): ${r.exported.mb.toFixed(0)} MB in ${r.exported.seconds.toFixed(1)} s, RSS at most ${r.exported.peak.toFixed(0)} MB while it streamed`);
  // Each process against its counterpart at the first size.
  const growth = (key) => `${each(rows.at(-1)[key].map((value, i) => ((value - rows[0][key][i]) / rows[0][key][i]) * 100), 1)} %`;
  if (rows.length > 1) console.log(`\nRSS growth ${rows[0].size.toLocaleString('en')} → ${rows.at(-1).size.toLocaleString('en')}: after the load ${growth('rss')}; after a full GC (what the process keeps) ${growth('kept')}; main heap used ${growth('heap')}`);
} finally {
  store.stop();
}
