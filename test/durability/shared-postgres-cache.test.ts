import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';
import { fingerprintOf } from '../../src/store/offloaded-issued-numbers.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import type { SharedStore } from '../../src/store/shared-store.js';
import { throwawayPostgresForFile, type ThrowawayPostgres } from '../support/postgres.js';
import { berlin, munich } from '../support/shipping-fixtures.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { call, expectStatus, newAccount, startChild, until, type ChildMock } from './child-mock.js';
import { expectEachTrackerStepDeliveredOnce } from './tracker-deliveries.js';
import { boundedWorkingSetCases, fill, inMemory, things, waitOutsideCases, type Thing } from './working-set-cases.js';

/**
 * Issue 27, a bounded working set on PostgreSQL: each process keeps at most `--cache-size`
 * accounts in memory (shared-scopes.ts). Proved with a cache of ONE account and two processes,
 * so that every other account a process touches has been evicted: a batch reads the account its
 * units name whole in its pull, a unit that names none reads it on the miss, pulls skip the rows
 * of accounts not in memory — and what any process acknowledged is what every other reads.
 */
const dhl = catalogueIds.carrier('DHL_PARCEL');
const dhlPaket = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET');

let cluster: ThrowawayPostgres;
const running: { kill(): Promise<unknown> }[] = [];
throwawayPostgresForFile(running, (started) => (cluster = started));

/** A store with a cache of one account on `url`, closed with the file's tests. */
async function openCache(url: string): Promise<SharedStore> {
  const store = (await openPostgresStore(url, { cacheSize: 1 })).store as SharedStore;
  running.push({ kill: async () => store.close() });
  return store;
}

async function storedCount(url: string, scope: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM shipmock_items WHERE scope = $1 AND body IS NOT NULL', [scope])).rows[0].n);
  } finally {
    await client.end();
  }
}

const twoStoresOnANewDatabase = async () => {
  const url = await cluster.createDatabase();
  return { one: await openCache(url), two: await openCache(url), third: () => openCache(url), storedCount: (scope: string) => storedCount(url, scope) };
};
boundedWorkingSetCases('a shared PostgreSQL store', twoStoresOnANewDatabase);
waitOutsideCases('a shared PostgreSQL store', twoStoresOnANewDatabase);

describe('the export of a shared PostgreSQL store', () => {
  /** Sessions the process has open on the database (its batch connection, its reader, an export's view). */
  async function sessions(url: string, processNumber: number): Promise<number> {
    const observer = new pg.Client({ connectionString: url });
    await observer.connect();
    try {
      const { rows } = await observer.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [`shipmock:${processNumber}`]);
      return Number(rows[0].n);
    } finally {
      await observer.end();
    }
  }

  it('streams the accounts that are not in memory from one snapshot, a page at a time, without loading them, and then ends its connection', async () => {
    const url = await cluster.createDatabase();
    const { store: one, processNumber } = await openPostgresStore(url, { cacheSize: 1 });
    const two = (await openPostgresStore(url, { cacheSize: 1 })).store as SharedStore;
    running.push({ kill: async () => [one, two].forEach((store) => store.close()) });
    const exporting = one as SharedStore;
    await fill(exporting, ['e1', 'e2', 'e3'], 3);
    expect(inMemory(exporting)).toEqual(['account:e3']);

    const exported = await exporting.transaction(() => exporting.snapshot());
    // The unit is over; e1 and e2 are not read yet: their items come from the view's snapshot.
    expect(await sessions(url, processNumber)).toBe(3);
    await two.transaction(() => {
      things(two, 'e1').delete('e1-1');
      things(two, 'e1').insert({ id: 'e1-4', n: 4 });
      things(two, 'e2').update({ id: 'e2-2', n: 20 });
    });
    const e1 = exported.scopes['account:e1'].collections.things;
    expect([...e1.encodedItems!()].map((text) => (JSON.parse(text) as [number, Thing])[1].id)).toEqual(['e1-1', 'e1-2', 'e1-3']);
    expect(exported.scopes['account:e2'].collections.things.items.map(([, thing]) => thing)).toEqual([
      { id: 'e2-1', n: 1 },
      { id: 'e2-2', n: 2 },
      { id: 'e2-3', n: 3 },
    ]);
    expect(exported.scopes['account:e3'].collections.things.items).toHaveLength(3);
    // Nothing of it went into the working set.
    expect(inMemory(exporting)).toEqual(['account:e3']);
    expect(exporting.workingSet()!.misses).toBe(0);
    // Every collection read: the view's connection ends.
    await until('the export view closes its connection', () => sessions(url, processNumber), (open) => open === 2);

    // A snapshot taken only in case (an import's way back) and released unread ends it at once.
    const unread = await exporting.transaction(() => exporting.snapshot());
    expect(await sessions(url, processNumber)).toBe(3);
    unread.release!();
    await until('a released view closes its connection', () => sessions(url, processNumber), (open) => open === 2);
    expect(() => unread.scopes['account:e1'].collections.things.items).toThrow(/given up/);
  }, 60_000);

  it('through HTTP: an export streams and then ends its view; an import gives up its way back at once, leaving no connection open', async () => {
    const url = await cluster.createDatabase();
    const mock = await startChild(['--data', url, '--cache-size', '1', '--rate-limit', 'off']);
    running.push(mock);
    const accounts = [];
    for (let a = 0; a < 3; a++) {
      const account = await newAccount(mock);
      accounts.push(account);
      await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `Person ${a}` } }), 201, 'address');
    }
    const observer = new pg.Client({ connectionString: url });
    await observer.connect();
    const open = async () => Number((await observer.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'shipmock:%'")).rows[0].n);
    try {
      const idle = await open();
      const exported = await expectStatus(call(mock.url, 'GET', '/__admin/state', { admin: true }), 200, 'export');
      expect(Object.keys(exported.store.scopes).filter((key: string) => key.startsWith('account:'))).toHaveLength(3);
      await until('the export view ends', open, (n) => n === idle, 5000);
      // The import's way back is a snapshot of the same kind, read only if the import fails.
      await expectStatus(call(mock.url, 'PUT', '/__admin/state', { admin: true, body: exported }), 204, 'import');
      await until('the import gives its way back up', open, (n) => n === idle, 3000);
      for (const [a, account] of accounts.entries()) {
        const listed = await expectStatus(call(mock.url, 'GET', '/v1/addresses', { auth: account.auth }), 200, 'addresses');
        expect(listed.items.map((address: { name: string }) => address.name)).toEqual([`Person ${a}`]);
      }
    } finally {
      await observer.end();
    }
  }, 60_000);
});

describe('the issued carrier numbers of a shared PostgreSQL store', () => {
  const numbers = ['DHL:STAGING:00340434161094042557', 'DHL:PRODUCTION:1Z999AA10123456784', 'GLS:STAGING:Zürich-€-1'];

  it('are fingerprinted by PostgreSQL as by the process (the first 4 bytes of the MD5 of the UTF-8 text)', async () => {
    const client = new pg.Client({ connectionString: await cluster.createDatabase() });
    await client.connect();
    try {
      for (const id of numbers) {
        const { rows } = await client.query<{ print: Buffer }>("SELECT decode(substr(md5($1), 1, 8), 'hex') AS print", [id]);
        expect(rows[0].print.readInt32BE(0), id).toBe(fingerprintOf(id));
      }
    } finally {
      await client.end();
    }
  });
});

/** Two `shipmock serve` processes on one new database. */
async function twoProcesses(args: string[]): Promise<[ChildMock, ChildMock]> {
  const url = await cluster.createDatabase();
  const mocks = (await Promise.all([startChild(['--data', url, ...args]), startChild(['--data', url, ...args])])) as [ChildMock, ChildMock];
  running.push(...mocks);
  return mocks;
}

/** Every item of a list, `limit` at a time, calling `between` after each page. */
async function pages(url: string, path: string, auth: string, limit: number, between: () => Promise<unknown>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await expectStatus(call(url, 'GET', `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { auth }), 200, `list ${path}`);
    ids.push(...page.items.map((item: { id: string }) => item.id));
    cursor = page.nextCursor;
    await between();
  } while (cursor);
  return ids;
}

describe('the synchronous reader of a bounded working set', () => {
  it('is connected once the store has opened: the first miss does not block the process while a thread starts and connects', async () => {
    const url = await cluster.createDatabase();
    const { store, processNumber } = await openPostgresStore(url, { cacheSize: 1 });
    running.push({ kill: async () => store.close() });
    // Two sessions of this process before any read: its batch connection and the reader's.
    const observer = new pg.Client({ connectionString: url });
    await observer.connect();
    try {
      const { rows } = await observer.query<{ sessions: string }>('SELECT count(*) AS sessions FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [`shipmock:${processNumber}`]);
      expect(Number(rows[0].sessions)).toBe(2);
    } finally {
      await observer.end();
    }
  });
});

describe('two processes on PostgreSQL with --cache-size 1, through HTTP', () => {
  it('pages through an account list with cursors while other accounts evict it on either process, and sees writes of the other process between pages', async () => {
    const [p, q] = await twoProcesses(['--cache-size', '1', '--rate-limit', 'off']);
    const accounts = await Promise.all([newAccount(p), newAccount(q), newAccount(p)]);
    const created = new Map<string, string[]>();
    for (const [a, account] of accounts.entries()) {
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const mock = [p, q][(a + i) % 2];
        ids.push((await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `Person ${a}-${i}` } }), 201, 'address')).id);
      }
      created.set(account.id, ids);
    }
    const [first, second, third] = accounts;
    // Between pages of the first account on q: the other two accounts are used on q (evicting the
    // first), and the first gets a new address on p.
    let n = 0;
    const evictAndWrite = async () => {
      await expectStatus(call(q.url, 'GET', '/v1/addresses?limit=1', { auth: second.auth }), 200, 'other account');
      await expectStatus(call(q.url, 'GET', '/v1/addresses?limit=1', { auth: third.auth }), 200, 'other account');
      const added = await expectStatus(call(p.url, 'POST', '/v1/addresses', { auth: first.auth, body: { ...munich, name: `Added ${n++}` } }), 201, 'address');
      created.get(first.id)!.push(added.id);
    };
    const listed = await pages(q.url, '/v1/addresses', first.auth, 2, evictAndWrite);
    // Each address once, in creation order, the ones added while paging included (they sort last).
    expect(listed).toEqual(created.get(first.id)!.slice(0, listed.length));
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.length).toBeGreaterThanOrEqual(8);
    // Both processes list every account's addresses alike.
    for (const account of accounts) {
      const onP = await pages(p.url, '/v1/addresses', account.auth, 100, async () => {});
      const onQ = await pages(q.url, '/v1/addresses', account.auth, 100, async () => {});
      expect(onP).toEqual(created.get(account.id));
      expect(onQ).toEqual(onP);
    }
  }, 120_000);

  it('advances the clock from either process: the tracker steps of accounts evicted everywhere are each recorded, published and delivered once', async () => {
    const receiver = await startWebhookReceiver();
    const [p, q] = await twoProcesses(['--cache-size', '1', '--rate-limit', 'off', '--clock', 'manual', '--clock-start', '2026-03-02T08:00:00Z', '--token-ttl', 'account=P30D']);
    const mocks = [p, q];
    const trackers: { auth: string; id: string }[] = [];
    for (let a = 0; a < 3; a++) {
      const home = mocks[a % 2];
      const other = mocks[(a + 1) % 2];
      const { auth } = await newAccount(home);
      const as = (mock: ChildMock, method: string, path: string, body?: unknown) => call(mock.url, method, path, { auth, body });
      await expectStatus(as(home, 'POST', '/v1/event-channels', { name: 'trackers', topics: ['TRACKER'], webhook: { url: receiver.url } }), 201, 'event channel');
      const carrierDefinitionId = (await expectStatus(as(other, 'POST', '/v1/carrier-definitions', { carrierId: dhl, name: 'DHL' }), 201, 'carrier')).id;
      const serviceDefinitionId = (await expectStatus(as(home, 'POST', '/v1/service-definitions', { carrierDefinitionId, serviceId: dhlPaket, name: 'DHL Paket' }), 201, 'service')).id;
      const shipmentChannelId = (await expectStatus(as(other, 'POST', '/v1/shipment-channels', { name: 'ZPL', documentRendering: { labelFormat: 'ZPL', labelSize: 'LABEL_4X6' } }), 201, 'channel')).id;
      const booked = await expectStatus(as(home, 'POST', '/v1/shipment-bookings/inline', { serviceDefinitionId, shipmentChannelId, sender: berlin, receiver: munich, parcels: [{ weight: 2 }], reference: `A${a}` }), 201, 'booking');
      const booking = await expectStatus(as(other, 'GET', `/v1/shipment-bookings/${booked.id}`), 200, 'booking');
      for (const id of booking.trackerIds as string[]) trackers.push({ auth, id });
    }
    expect(trackers).toHaveLength(3);
    // With one account in memory, each process holds at most the last account it used: every
    // timer fires for an account read on the miss. The clock moves a week from either process.
    for (let step = 0; step < 28; step++) {
      await expectStatus(call(mocks[step % 2].url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'PT6H' } }), 200, 'advance clock');
    }
    const journey = ['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED'];
    for (const tracker of trackers) {
      const seen = await Promise.all(mocks.map((mock) => expectStatus(call(mock.url, 'GET', `/v1/trackers/${tracker.id}`, { auth: tracker.auth }), 200, 'tracker')));
      expect(seen[0].events.map((event: { status: string }) => event.status)).toEqual(journey);
      expect(seen[1]).toEqual(seen[0]);
    }
    await expectEachTrackerStepDeliveredOnce(mocks, receiver, trackers.map(({ id }) => id), journey.length);
    await receiver.close();
  }, 120_000);
});
