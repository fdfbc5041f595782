#!/usr/bin/env node
// node bench/shared-cache-rss.mjs (after npm run build) — issue 27, a bounded working set on
// PostgreSQL: RSS of a fresh `shipmock serve --data postgres://…` process (default --cache-size,
// or BENCH_CACHE) on a database holding 10k and 200k inline bookings, 100 per account, with the
// p50/p99 of a list over a hot set of accounts and the first request of an account that is not
// in memory (read whole by its batch's pull); RSS right after that load, SETTLE ms later, and after
// a full garbage collection (bench/gc-on-signal.mjs: what the process keeps, without the garbage
// V8 has not collected yet). The companion of bench/cache-rss.mjs (SQLite).
//
// Seeding: TEMPLATE_ACCOUNTS (10) accounts of BENCH_PER_ACCOUNT (100) inline bookings are made
// through the API once, on a throwaway cluster (scripts/throwaway-postgres.mjs); every other
// account is a copy of a template account's rows under a new account id, made in SQL as ONE
// commit (one change number: what a pull sees of it is what a commit of those rows would give),
// with the account added to the company and to the global account owners, and two issued
// tracking numbers per booking, as the API would have made them. Sizes grow in order on one
// database (BENCH_SIZES, default 10000,200000); each is measured on a fresh process.
// Options (env): BENCH_SIZES, BENCH_PER_ACCOUNT, BENCH_CACHE, BENCH_HOT (50), BENCH_COLD (20), BENCH_SETTLE_MS (10000),
// BENCH_EXPORT=1 (last, an export read to its end: its size, time and the RSS peak while it streams).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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
const serve = (args) => serveChild(root, args);

/** The template: `templates` accounts of `perAccount` inline bookings, through the API. */
async function seedTemplate(url) {
  const mock = await serve(['--data', url]);
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
async function grow(url, companyId, accounts) {
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

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

/** GET /__admin/state read to its end (and dropped) while RSS is sampled every 50 ms: the export's size, time and peak RSS. */
async function exportPeak(mock) {
  let peak = rssMb(mock.child.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(mock.child.pid))), 50);
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

async function measure(url, size) {
  const mock = await serve(['--data', url, ...cacheFlags]);
  try {
    const afterStart = rssMb(mock.child.pid);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const ids = (await db.query("SELECT id FROM shipmock_items WHERE scope = $1 AND collection = 'accounts' AND body IS NOT NULL ORDER BY seq", [`company:${mock.companyId}`])).rows.map((row) => row.id);
    await db.end();
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
    const rss = rssMb(mock.child.pid);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const settled = rssMb(mock.child.pid);
    const { heapUsed, heapTotal } = await mock.fullGc();
    const kept = rssMb(mock.child.pid);
    const exported = exporting ? await exportPeak(mock) : undefined;
    return { size, accounts: ids.length, startMs: mock.startMs, afterStart, rss, settled, kept, exported, heap: heapUsed / 2 ** 20, heapTotal: heapTotal / 2 ** 20, p50: percentile(list, 50), p99: percentile(list, 99), coldP50: percentile(cold, 50), coldMax: Math.max(...cold) };
  } finally {
    await mock.stop();
  }
}

const cluster = await startThrowawayPostgres();
try {
  const url = await cluster.createDatabase();
  const companyId = await seedTemplate(url);
  const rows = [];
  for (const size of sizes) {
    await grow(url, companyId, size / perAccount);
    rows.push(await measure(url, size));
  }
  console.log(`\none process, --data postgres://…, ${cacheFlags.length ? cacheFlags.join(' ') : 'default --cache-size'}; ${perAccount} inline bookings per account, trackers pending; list = GET /v1/shipment-bookings?limit=20 over ${hot} accounts at c=10\n`);
  console.log(`| bookings | accounts | start s | RSS after start MB | RSS after load MB | RSS ${settleMs / 1000} s later MB | RSS after a full GC MB (main thread's heap used / total) | list p50 / p99 ms | cold first request p50 / max ms |`);
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.size.toLocaleString('en')} | ${r.accounts} | ${(r.startMs / 1000).toFixed(1)} | ${r.afterStart.toFixed(0)} | ${r.rss.toFixed(0)} | ${r.settled.toFixed(0)} | ${r.kept.toFixed(0)} (${r.heap.toFixed(0)} / ${r.heapTotal.toFixed(0)}) | ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} | ${r.coldP50.toFixed(1)} / ${r.coldMax.toFixed(1)} |`);
  }
  if (exporting) for (const r of rows) console.log(`export at ${r.size.toLocaleString('en')} bookings (GET /__admin/state, after the rest): ${r.exported.mb.toFixed(0)} MB in ${r.exported.seconds.toFixed(1)} s, RSS at most ${r.exported.peak.toFixed(0)} MB while it streamed`);
  const growth = (key) => `${(((rows.at(-1)[key] - rows[0][key]) / rows[0][key]) * 100).toFixed(1)} %`;
  if (rows.length > 1) console.log(`\nRSS growth ${rows[0].size.toLocaleString('en')} → ${rows.at(-1).size.toLocaleString('en')}: after the load ${growth('rss')}; after a full GC (what the process keeps) ${growth('kept')}`);
} finally {
  cluster.stop();
}
