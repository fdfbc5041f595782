// `npm run bench -- --size [--sizes 10000,50000] [--size-stores postgres,sqlite]`: memory at size
// (issue 27). One account filled through the API with concurrency (autocannon, c=20) to each
// size of inline bookings (PDF labels) and as many addresses; at each size the RSS of the process
// that made them, the p50/p99 of a list page of each (GET …?limit=20, BENCH_DURATION s), and for
// PostgreSQL the RSS of a fresh process on the same database (it loads the whole sandbox).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newAccount, startServe } from './scale-out.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const address = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };

const rssMb = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);

function autocannon(url, auth, { method = 'GET', body, amount, duration, connections = 20 }) {
  const args = ['-c', String(connections), ...(amount ? ['-a', String(amount)] : ['-d', String(duration)]), '-j', '-m', method, '-H', `Authorization=${auth}`];
  if (body) args.push('-H', 'Content-Type=application/json', '-b', JSON.stringify(body));
  const out = spawnSync(`${root}node_modules/.bin/autocannon`, [...args, url], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const report = JSON.parse(out.stdout);
  return { total: report.requests.total, seconds: report.duration, p50: report.latency.p50, p99: report.latency.p99, non2xx: report.non2xx + report.errors };
}

/** The body of an inline booking of the account (a DHL Paket service and a PDF channel of its own). */
async function bookingBody(url, auth) {
  const call = async (path, body) => {
    const res = await fetch(url + path, { method: body ? 'POST' : 'GET', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const dhl = (await call('/v1/carriers?limit=100')).items.find((c) => /DHL/.test(c.name) && !/Express/.test(c.name));
  const paket = (await call(`/v1/carriers/${dhl.id}/services`)).items.find((s) => /Paket/.test(s.name));
  const carrierDefinition = await call('/v1/carrier-definitions', { carrierId: dhl.id, name: 'DHL' });
  const serviceDefinition = await call('/v1/service-definitions', { carrierDefinitionId: carrierDefinition.id, serviceId: paket.id, name: 'Paket' });
  const channel = await call('/v1/shipment-channels', { name: 'PDF', documentRendering: { labelFormat: 'PDF', labelSize: 'A6' } });
  const receiver = { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' };
  return { serviceDefinitionId: serviceDefinition.id, shipmentChannelId: channel.id, sender: address, receiver, parcels: [{ weight: 2.5 }], reference: 'BENCH' };
}

/** Fills to `goal` bookings and addresses; answers how long it took and what failed. */
function fill(server, account, body, have, goal) {
  const amount = goal - have;
  const bookings = autocannon(`${server.url}/v1/shipment-bookings/inline`, account.auth, { method: 'POST', body, amount });
  const addresses = autocannon(`${server.url}/v1/addresses`, account.auth, { method: 'POST', body: address, amount });
  return { bookingsPerSecond: Math.round(amount / bookings.seconds), addressesPerSecond: Math.round(amount / addresses.seconds), non2xx: bookings.non2xx + addresses.non2xx };
}

/** A second process on the same database: it loads the whole sandbox before it answers (5 minutes at most). */
async function freshProcess(extra) {
  const started = performance.now();
  try {
    const other = await startServe(extra, 300_000);
    const fresh = { rss: rssMb(other.child.pid), startMs: Math.round(performance.now() - started) };
    other.stop();
    return fresh;
  } catch (error) {
    return { rss: 'n/a', startMs: error.message };
  }
}

/** RSS, the list p50/p99 and (shared store) a fresh process's RSS and time to its first answer, at one size. */
async function measureAt(server, account, extra, duration) {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const rss = rssMb(server.child.pid);
  const bookings = autocannon(`${server.url}/v1/shipment-bookings?limit=20`, account.auth, { duration });
  const addresses = autocannon(`${server.url}/v1/addresses?limit=20`, account.auth, { duration });
  return { rss, bookings, addresses, fresh: extra[1].startsWith('postgres') ? await freshProcess(extra) : undefined };
}

async function sizeRunOn(store, extra, sizes, duration) {
  const server = await startServe(extra);
  const rows = [];
  try {
    const account = await newAccount(server.url, `Size ${store}`);
    const body = await bookingBody(server.url, account.auth);
    const measured = (row) => {
      rows.push(row);
      process.stderr.write(`${rowOf(row)}\n`);
    };
    measured({ store, size: 0, ...(await measureAt(server, account, extra, duration)) });
    let have = 0;
    for (const size of sizes) {
      process.stderr.write(`${store}: filling to ${size} bookings and ${size} addresses…\n`);
      const filled = fill(server, account, body, have, size);
      have = size;
      measured({ store, size, filled, ...(await measureAt(server, account, extra, duration)) });
    }
  } finally {
    server.stop();
  }
  return rows;
}

export async function sizeRun({ sizes, stores, duration }) {
  const { startThrowawayPostgres } = await import('../scripts/throwaway-postgres.mjs');
  const cluster = stores.includes('postgres') ? await startThrowawayPostgres() : undefined;
  const rows = [];
  try {
    for (const store of stores) {
      const data = store === 'postgres' ? await cluster.createDatabase() : join(mkdtempSync(join(tmpdir(), 'shipmock-size-')), 'size.db');
      rows.push(...(await sizeRunOn(store, ['--data', data], sizes, duration)));
    }
  } finally {
    cluster?.stop();
  }
  console.log(`\n${HEADER}`);
  for (const r of rows) console.log(rowOf(r));
}

const HEADER =
  '| store | stored bookings + addresses | RSS MB (the process that made them) | RSS MB of a fresh process (start ms) | bookings list p50 / p99 ms | addresses list p50 / p99 ms | filled at bookings/s, addresses/s (non-2xx) |\n|---|---|---|---|---|---|---|';

function rowOf(r) {
  const fresh = r.fresh ? `${r.fresh.rss} (${r.fresh.startMs})` : '—';
  const filled = r.filled ? `${r.filled.bookingsPerSecond}, ${r.filled.addressesPerSecond} (${r.filled.non2xx})` : '—';
  return `| ${r.store} | ${r.size.toLocaleString('en')} + ${r.size.toLocaleString('en')} | ${r.rss} | ${fresh} | ${r.bookings.p50} / ${r.bookings.p99} | ${r.addresses.p50} / ${r.addresses.p99} | ${filled} |`;
}
