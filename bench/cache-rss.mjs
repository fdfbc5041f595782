#!/usr/bin/env node
// node bench/cache-rss.mjs (after npm run build) — issue 27, a bounded working set: RSS of one
// `shipmock serve --data FILE` process (default --cache-size) holding 10k and 200k inline
// bookings, 100 per account, with the p99 of a list over a hot set of accounts and the first
// request of an account that is not in memory (a cold load).
//
// Seeding: TEMPLATE_ACCOUNTS accounts of 100 inline bookings each (addresses, parcels, trackers,
// labels: what a booking stores) are made through the API once; every other account is a copy
// of a template account's rows under a new account id, made in SQL (with the account itself
// added to the company, so that it gets tokens like any account). 200k bookings through the API
// take ~10 minutes on this machine; copying rows takes seconds and gives the file the same
// shape (the global scope's issued tracking numbers, one set for the sandbox, grow with it too).
// Options (env): BENCH_SIZES (10000,200000), BENCH_PER_ACCOUNT (100), BENCH_CACHE
// (unset: the default), BENCH_TRACE_GC (a file: the measured mock runs with --trace-gc into it), BENCH_SETTLE_MS (10000: RSS again after that long idle), BENCH_HOT (50 accounts in the list load), BENCH_COLD (20 cold loads),
// BENCH_WORK (a folder kept between runs: the template and each grown file are made once there,
// and every run serves a fresh copy of the grown file, so A/B runs and sizes run separately
// measure the same files), BENCH_LONG (0: rounds of a longer load after the settled RSS, each
// listing BENCH_LONG_ACCOUNTS (400) accounts once at c=10 — more than the cache holds, so every
// round reads and evicts accounts — with RSS after each round: does the growth level off?).
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { ACCOUNT_BODY, accountAuth, berlin, call, inParallel, munich, serve as serveChild } from './serve-child.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const sizes = (process.env.BENCH_SIZES ?? '10000,200000').split(',').map(Number);
const perAccount = Number(process.env.BENCH_PER_ACCOUNT ?? 100);
const templates = Number(process.env.TEMPLATE_ACCOUNTS ?? 10);
const hot = Number(process.env.BENCH_HOT ?? 50);
const coldCount = Number(process.env.BENCH_COLD ?? 20);
const delivered = process.env.BENCH_DELIVERED === '1';
const settleMs = Number(process.env.BENCH_SETTLE_MS ?? 10_000);
const longRounds = Number(process.env.BENCH_LONG ?? 0);
const longAccounts = Number(process.env.BENCH_LONG_ACCOUNTS ?? 400);
const cacheFlags = process.env.BENCH_CACHE ? ['--cache-size', process.env.BENCH_CACHE] : [];
const work = process.env.BENCH_WORK ?? mkdtempSync(join(tmpdir(), 'shipmock-cache-rss-'));
mkdirSync(work, { recursive: true });

/** serve-child.mjs's serve of this checkout: the measured mock (not the template's) with --trace-gc when BENCH_TRACE_GC names a file. */
const serve = (args) => serveChild(root, args, { traceGcFile: process.env.BENCH_TRACE_GC && args.includes('--data') && !args.some((a) => String(a).endsWith('template.db')) ? process.env.BENCH_TRACE_GC : undefined });

/** The template file: `templates` accounts of `perAccount` inline bookings, through the API. */
async function seedTemplate() {
  const file = join(work, `template${delivered ? '-delivered' : ''}.db`);
  if (existsSync(`${file}.json`)) return JSON.parse(readFileSync(`${file}.json`, 'utf8'));
  const mock = await serve(['--data', file]);
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
  // BENCH_DELIVERED=1: a month later every tracker is delivered, so no tracker step is pending
  // (no clock timer per booking): the working set alone.
  if (delivered) await call(mock, 'POST', '/__admin/clock/advance', { body: { duration: 'P30D' } });
  await mock.stop();
  writeFileSync(`${file}.json`, JSON.stringify({ file, companyId: mock.companyId }));
  return { file, companyId: mock.companyId };
}

/** A copy of the template with `accounts` accounts: the others are the template's rows under new ids. */
function grow(template, accounts) {
  const pristine = join(work, `bookings-${accounts * perAccount}${delivered ? '-delivered' : ''}.db`);
  const file = join(work, 'serving.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  if (!existsSync(pristine)) {
    const growing = `${pristine}.part`;
    growInto(template, accounts, growing);
    renameSync(growing, pristine);
  }
  copyFileSync(pristine, file);
  const db = new Database(file, { readonly: true });
  const ids = db.prepare("SELECT id FROM items WHERE scope = ? AND collection = 'accounts' ORDER BY seq").pluck().all(`company:${template.companyId}`);
  db.close();
  return { file, ids };
}

function growInto(template, accounts, file) {
  copyFileSync(template.file, file);
  const db = new Database(file);
  const source = db.prepare("SELECT scope FROM collections WHERE scope LIKE 'account:%' GROUP BY scope").pluck().all();
  const companyScope = `company:${template.companyId}`;
  const accountRow = db.prepare("SELECT body FROM items WHERE scope = ? AND collection = 'accounts' AND id = ?").pluck();
  let nextSeq = db.prepare("SELECT next_seq FROM collections WHERE scope = ? AND collection = 'accounts'").pluck().get(companyScope);
  const copyItems = db.prepare('INSERT INTO items (scope, collection, seq, id, body) SELECT ?, collection, seq, id, body FROM items WHERE scope = ?');
  const copyCollections = db.prepare('INSERT INTO collections (scope, collection, next_seq) SELECT ?, collection, next_seq FROM collections WHERE scope = ?');
  const copyValues = db.prepare('INSERT INTO scope_values (scope, key, value) SELECT ?, key, value FROM scope_values WHERE scope = ?');
  const addAccount = db.prepare("INSERT INTO items (scope, collection, seq, id, body) VALUES (?, 'accounts', ?, ?, ?)");
  // Which company an account belongs to (tokens are issued by it).
  let ownerSeq = db.prepare("SELECT next_seq FROM collections WHERE scope = 'global' AND collection = 'account-owners'").pluck().get();
  const addOwner = db.prepare("INSERT INTO items (scope, collection, seq, id, body) VALUES ('global', 'account-owners', ?, ?, ?)");
  // Every booked parcel's tracking numbers are kept in the global scope (issued once, never again).
  let numberSeq = db.prepare("SELECT next_seq FROM collections WHERE scope = 'global' AND collection = 'issued-carrier-numbers'").pluck().get();
  const numbersPerAccount = Math.round((numberSeq - 1) / source.length);
  const addNumber = db.prepare("INSERT INTO items (scope, collection, seq, id, body) VALUES ('global', 'issued-carrier-numbers', ?, ?, ?)");
  db.transaction(() => {
    for (let i = source.length; i < accounts; i++) {
      const from = source[i % source.length];
      const id = randomUUID();
      for (const statement of [copyItems, copyCollections, copyValues]) statement.run(`account:${id}`, from);
      const body = JSON.parse(accountRow.get(companyScope, from.slice('account:'.length)));
      addAccount.run(companyScope, nextSeq++, id, JSON.stringify({ ...body, id }));
      addOwner.run(ownerSeq++, id, JSON.stringify({ id, companyId: template.companyId }));
      for (let n = 0; n < numbersPerAccount; n++) {
        const number = `DHL_PARCEL:STAGING:9${String(i).padStart(5, '0')}${String(n).padStart(6, '0')}`;
        addNumber.run(numberSeq++, number, JSON.stringify({ id: number }));
      }
    }
    db.prepare("UPDATE collections SET next_seq = ? WHERE scope = 'global' AND collection = 'issued-carrier-numbers'").run(numberSeq);
    db.prepare("UPDATE collections SET next_seq = ? WHERE scope = 'global' AND collection = 'account-owners'").run(ownerSeq);
    db.prepare("UPDATE collections SET next_seq = ? WHERE scope = ? AND collection = 'accounts'").run(nextSeq, companyScope);
  })();
  db.close();
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

async function measure(size, template) {
  const accounts = size / perAccount;
  const grown = grow(template, accounts);
  const mock = await serve(['--data', grown.file, ...cacheFlags]);
  try {
    return await load(mock, size, accounts, grown);
  } finally {
    await mock.stop();
  }
}

async function load(mock, size, accounts, grown) {
  const afterStart = rssMb(mock.child.pid);
  // A hot set of accounts, listed page after page (the list of one account: 20 per page).
  if (grown.ids.length < hot + coldCount) throw new Error(`${size} bookings make ${grown.ids.length} accounts: BENCH_HOT (${hot}) + BENCH_COLD (${coldCount}) need at least that many`);
  const hotIds = grown.ids.slice(0, hot);
  const auths = new Map();
  for (const id of grown.ids) if (auths.size < hot + coldCount) auths.set(id, await accountAuth(mock, id));
  const list = [];
  await inParallel(hot * 40, 10, async (i) => {
    const id = hotIds[i % hotIds.length];
    const started = performance.now();
    await call(mock, 'GET', '/v1/shipment-bookings?limit=20', { auth: auths.get(id) });
    list.push(performance.now() - started);
  });
  // Cold: accounts outside the hot set, first request (read from the file) and the second.
  const cold = [];
  const warm = [];
  for (const id of grown.ids.slice(hot, hot + coldCount)) {
    let started = performance.now();
    await call(mock, 'GET', '/v1/shipment-bookings?limit=20', { auth: auths.get(id) });
    cold.push(performance.now() - started);
    started = performance.now();
    await call(mock, 'GET', '/v1/shipment-bookings?limit=20', { auth: auths.get(id) });
    warm.push(performance.now() - started);
    // Back to the hot set so that the next cold account is cold again.
  }
  const rss = rssMb(mock.child.pid);
  // The same process after 10 s without requests: what the garbage collector gives back once
  // the load's churn (accounts read from the file and evicted) has been collected.
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  const settled = rssMb(mock.child.pid);
  // A longer load: rounds over more accounts than the cache holds (each round reads and evicts).
  const long = [];
  const longIds = grown.ids.slice(0, Math.min(longAccounts, grown.ids.length));
  for (const id of longIds) if (!auths.has(id)) auths.set(id, await accountAuth(mock, id));
  for (let round = 0; round < longRounds; round++) {
    const times = [];
    await inParallel(longIds.length, 10, async (i) => {
      const started = performance.now();
      await call(mock, 'GET', '/v1/shipment-bookings?limit=20', { auth: auths.get(longIds[(i * 7919) % longIds.length]) });
      times.push(performance.now() - started);
    });
    long.push({ rss: rssMb(mock.child.pid), p50: percentile(times, 50), p99: percentile(times, 99) });
  }
  return { long, size, accounts, fileMb: statSync(grown.file).size / 1e6, startMs: mock.startMs, afterStart, rss, settled, p50: percentile(list, 50), p99: percentile(list, 99), coldP50: percentile(cold, 50), coldMax: Math.max(...cold), warmP50: percentile(warm, 50) };
}

const template = await seedTemplate();
const rows = [];
for (const size of sizes) rows.push(await measure(size, template));
console.log(`\none process, --data FILE, ${cacheFlags.length ? cacheFlags.join(' ') : 'default --cache-size'}; ${perAccount} inline bookings per account, trackers ${delivered ? 'delivered' : 'pending'}; list = GET /v1/shipment-bookings?limit=20 over ${hot} accounts at c=10\n`);
console.log(`| bookings | accounts | file MB | start s | RSS after start MB | RSS after load MB | RSS ${settleMs / 1000} s later MB | list p50 / p99 ms | cold first request p50 / max ms | same account again p50 ms |`);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.size.toLocaleString('en')} | ${r.accounts} | ${r.fileMb.toFixed(0)} | ${(r.startMs / 1000).toFixed(1)} | ${r.afterStart.toFixed(0)} | ${r.rss.toFixed(0)} | ${r.settled.toFixed(0)} | ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} | ${r.coldP50.toFixed(1)} / ${r.coldMax.toFixed(1)} | ${r.warmP50.toFixed(1)} |`);
}
for (const r of rows.filter((row) => row.long.length)) {
  console.log(`\nlonger load at ${r.size.toLocaleString('en')} bookings, ${Math.min(longAccounts, r.accounts)} accounts listed once per round at c=10: RSS MB after each round (list p50 / p99 ms): ${r.long.map((l) => `${l.rss.toFixed(0)} (${l.p50.toFixed(0)} / ${l.p99.toFixed(0)})`).join(', ')}`);
}
if (rows.length > 1) console.log(`\nRSS growth ${rows[0].size.toLocaleString('en')} → ${rows.at(-1).size.toLocaleString('en')}: ${(((rows.at(-1).rss - rows[0].rss) / rows[0].rss) * 100).toFixed(1)} %`);
