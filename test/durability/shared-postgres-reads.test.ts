import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';
import type { Clock } from '../../src/clock/clock.js';
import { createRateLimiter } from '../../src/rate-limit/rate-limiter.js';
import { isWindow } from '../../src/rate-limit/windows-in-values.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import type { SharedStore } from '../../src/store/shared-store.js';
import { ReadMustLockError, type Store } from '../../src/store/store.js';
import { holdLocks, waitingOnLocks } from './advisory-locks.js';
import { throwawayPostgresForFile, type ThrowawayPostgres } from '../support/postgres.js';
import { call, expectStatus, newAccount, startChild, until, type Answer, type ChildMock } from './child-mock.js';
import { aReadThatWrites, inFlight } from './in-flight.js';

/**
 * Issue 27, reads without a lock: a GET of one account on a shared PostgreSQL store runs on a
 * pull of its own (one statement, no advisory lock), on state at least as new as every commit
 * acknowledged before it started, and commits only if it wrote — then under the locks of the
 * accounts it wrote, proven unchanged since its pull, or it runs again under its lock
 * (src/store/shared-store.ts). Proved without timing: a test connection holds the locks a batch
 * takes and the tests watch what completes meanwhile, and what is in the database after.
 */
const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const munich = { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' };
const dhl = catalogueIds.carrier('DHL_PARCEL');
const dhlPaket = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET');

let cluster: ThrowawayPostgres;
const running: { kill(): Promise<unknown> }[] = [];
throwawayPostgresForFile(running, (started) => (cluster = started));

/** The rows the database holds for a collection of one scope (bodies parsed). */
async function storedItems(url: string, scope: string, collection: string): Promise<{ id: string; body: any }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; body: string | null }>('SELECT id, body FROM shipmock_items WHERE scope = $1 AND collection = $2 ORDER BY seq', [scope, collection]);
    return rows.filter((row) => row.body !== null).map((row) => ({ id: row.id, body: JSON.parse(row.body!) }));
  } finally {
    await client.end();
  }
}

async function twoStores(): Promise<{ url: string; one: Store; two: Store; oneNumber: number }> {
  const url = await cluster.createDatabase();
  const { store: one, processNumber: oneNumber } = await openPostgresStore(url);
  const two = (await openPostgresStore(url)).store;
  running.push({ kill: async () => [one, two].forEach((store) => store.close()) });
  return { url, one, two, oneNumber };
}

/** The server processes of a store's open connections (each named `shipmock:<its process number>`). */
async function connectionsOf(url: string, processNumber: number): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 ORDER BY pid', [`shipmock:${processNumber}`]);
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

const things = (store: Store, account: string) => store.account(account).collection<{ id: string; n?: number }>('things');
const READ = (account: string) => ({ account, read: true });

describe('reads without a lock on a shared PostgreSQL store', () => {
  it('answers a read that writes nothing while its account and the wide lock are held elsewhere, with every acknowledged write of another process in it', async () => {
    const { url, one, two } = await twoStores();
    await two.transaction(() => void things(two, 'a').insert({ id: 't1' }), 'request', { account: 'a' });

    const wide = await holdLocks(url, 'wide');
    // Acknowledged by two before the read started: the read sees it, though it takes no lock.
    const read = inFlight(one.transaction(() => things(one, 'a').values().map((item) => item.id), 'request', READ('a')));
    expect(await read.result).toEqual(['t1']);
    await wide.release();

    const held = await holdLocks(url, { account: 'a' });
    expect(await one.transaction(() => things(one, 'a').size, 'request', READ('a'))).toBe(1);
    // A unit of the account that writes waits for the lock as before.
    const write = inFlight(one.transaction(() => void things(one, 'a').insert({ id: 't2' }), 'request', { account: 'a' }));
    await until('the locked write waits on the account lock', () => waitingOnLocks(url), (n) => n >= 1, 20_000);
    expect(write.settled()).toBe(false);
    await held.release();
    await write.result;
    expect(one.batchStats!().reads!.batches).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('commits a read that wrote under the lock of the account it wrote, waiting for that lock only at its commit', async () => {
    const { url, one, two } = await twoStores();
    await two.transaction(() => void things(two, 'a').insert({ id: 't1', n: 0 }), 'request', { account: 'a' });
    const held = await holdLocks(url, { account: 'a' });
    // The work runs (no lock to wait for); the commit waits for the account's lock.
    const read = aReadThatWrites(one, 'a');
    await until('the read ran and waits at its commit', () => waitingOnLocks(url), (n) => n >= 1, 20_000);
    expect(read.ran()).toBe(true);
    expect(read.settled()).toBe(false);
    await held.release();
    await read.result;
    expect(await storedItems(url, 'account:a', 'things')).toEqual([{ id: 't1', body: { id: 't1', n: 1 } }]);
    expect(one.batchStats!().reads).toMatchObject({ committed: 1, retried: 0 });
  }, 60_000);

  it('refuses a read that wrote when another process changed its account since its pull: nothing is written, the copy reloads, the unit runs again locked and writes once', async () => {
    const { url, one, two, oneNumber } = await twoStores();
    await two.transaction(() => void things(two, 'a').insert({ id: 't1', n: 0 }), 'request', { account: 'a' });
    let proceed!: () => void;
    let pulled!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    const started = new Promise<void>((resolve) => (pulled = resolve));
    // What the read leaves in memory only, once committed (as the inspector's newest events are kept).
    const kept: string[] = [];
    // A read of one increments n as it saw it (a catch-up computed from what it read)…
    const bump = async (store: Store) => {
      const seen = things(store, 'a').get('t1')!.n!;
      pulled();
      await gate;
      things(store, 'a').update({ id: 't1', n: seen + 1 });
      store.afterCommit!(() => kept.push(`read saw ${seen}`));
    };
    const read = inFlight(one.transaction(() => bump(one), 'request', READ('a')));
    await started;
    const connections = await connectionsOf(url, oneNumber);
    // …while two increments it under the lock and commits first.
    await two.transaction(() => void things(two, 'a').update({ id: 't1', n: things(two, 'a').get('t1')!.n! + 1 }), 'request', { account: 'a' });
    proceed();
    const refused = await read.result.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ReadMustLockError);
    expect(await storedItems(url, 'account:a', 'things')).toEqual([{ id: 't1', body: { id: 't1', n: 1 } }]);
    expect(one.batchStats!().reads).toMatchObject({ retried: 1 });
    expect(kept, 'nothing of the refused read is kept').toEqual([]);
    // The refused commit was rolled back on its connection, which stays open (no reconnect per refusal).
    expect(await connectionsOf(url, oneNumber)).toEqual(expect.arrayContaining(connections));

    // Run again under the lock (as unit-of-work.ts does): it sees two's write and adds its own.
    await one.transaction(() => {
      const seen = things(one, 'a').get('t1')!.n!;
      things(one, 'a').update({ id: 't1', n: seen + 1 });
      one.afterCommit!(() => kept.push(`locked saw ${seen}`));
    }, 'request', { account: 'a' });
    expect(await storedItems(url, 'account:a', 'things')).toEqual([{ id: 't1', body: { id: 't1', n: 2 } }]);
    expect(kept).toEqual(['locked saw 1']);
    // The account was contended: its reads lock for a while (a locked batch, not a read batch).
    const before = one.batchStats!();
    await one.transaction(() => things(one, 'a').size, 'request', READ('a'));
    expect(one.batchStats!().byLock.account).toBe(before.byLock.account + 1);
    // Another account's reads still go without a lock.
    const readsBefore = one.batchStats!().reads!.batches;
    await one.transaction(() => things(one, 'b').size, 'request', READ('b'));
    expect(one.batchStats!().reads!.batches).toBe(readsBefore + 1);
  }, 60_000);

  it('commits a read that wrote values only (a rate-limit window) in one call of the commit function, and refuses it as the script would when its account changed since its pull', async () => {
    const { url, two } = await twoStores();
    // Every statement of the sessions that start from now on, to the server's log.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET log_statement = 'all'`);
    const key = `seen-${Date.now()}`;
    /** The calls of the function that wrote `key`, as logged. */
    const calls = () => cluster.log().split('\n').filter((line) => line.includes('shipmock_commit_values(') && line.includes(key)).length;
    const counted = (store: Store, account: string) => store.account(account).values;
    try {
      const { store: three } = await openPostgresStore(url);
      running.push({ kill: async () => three.close() });
      await two.transaction(() => void things(two, 'a').insert({ id: 't1' }), 'request', { account: 'a' });
      // A read that sets a value of its account: committed under its lock, through the function.
      await three.transaction(() => void counted(three, 'a').set(key, 1), 'request', READ('a'));
      expect(three.batchStats!().reads).toMatchObject({ committed: 1, retried: 0 });
      const stored = () => admin.query('SELECT value FROM shipmock_values WHERE scope = $1 AND key = $2', ['account:a', key]);
      expect((await stored()).rows).toEqual([{ value: '1' }]);
      expect(calls()).toBe(1);

      // The same read, but another process writes the account between its pull and its commit: refused, nothing written.
      let proceed!: () => void;
      let pulled!: () => void;
      const gate = new Promise<void>((resolve) => (proceed = resolve));
      const started = new Promise<void>((resolve) => (pulled = resolve));
      const read = inFlight(
        three.transaction(async () => {
          const seen = counted(three, 'a').get(key) as number;
          pulled();
          await gate;
          counted(three, 'a').set(key, seen + 1);
        }, 'request', READ('a')),
      );
      await started;
      await two.transaction(() => void things(two, 'a').insert({ id: 't2' }), 'request', { account: 'a' });
      proceed();
      expect(await read.result.then(() => undefined, (error: unknown) => error)).toBeInstanceOf(ReadMustLockError);
      expect((await stored()).rows).toEqual([{ value: '1' }]);
      expect(three.batchStats!().reads).toMatchObject({ committed: 1, retried: 1 });
      // The refused commit was a call of the function too: logged when sent, and again with the error that refused it.
      expect(calls()).toBe(3);
      expect(cluster.log()).toMatch(/ERROR: +division by zero/);
    } finally {
      await admin.end();
    }
  }, 60_000);

  it('counts a read batch\'s requests ahead in its pull, under its account\'s lock: exact across processes, no commit after it; a window that ended since is written by a commit', async () => {
    const { url, one, two } = await twoStores();
    let now = 1_000_000;
    const clock = { now: () => now } as unknown as Clock;
    for (const store of [one, two]) store.countReadsAhead!({ windowMs: () => 60_000, now: () => now });
    const limiterOf = (store: Store) => createRateLimiter({ clock, limit: 5, windowMs: 60_000, windows: store.counters('rate:principal', isWindow) });
    const limiters = [limiterOf(one), limiterOf(two)];
    const stored = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return JSON.parse((await client.query<{ value: string }>("SELECT value FROM shipmock_values WHERE scope = 'system' AND key = 'rate:principal:account:a'")).rows[0].value);
      } finally {
        await client.end();
      }
    };

    // Eight reads of one account at once, four on each process: each counts once in the one window.
    const states = await Promise.all(Array.from({ length: 8 }, (_, i) => [one, two][i % 2].transaction(() => limiters[i % 2].consume('account:a'), 'request', READ('a'))));
    expect(states.map((state) => state.remaining).sort()).toEqual([0, 0, 0, 0, 1, 2, 3, 4]);
    expect(states.filter((state) => !state.limited)).toHaveLength(5);
    expect(await stored()).toEqual({ startedAt: 1_000_000, count: 8 });
    for (const store of [one, two]) expect(store.batchStats!().reads).toMatchObject({ committed: 0, retried: 0 });
    expect((one as SharedStore).lockStats().countedAhead + (two as SharedStore).lockStats().countedAhead).toBeGreaterThanOrEqual(2);
    // A locked unit of the account counts on from there, as it finds the window in its pull.
    expect(await two.transaction(() => limiters[1].consume('account:a').remaining, 'request', { account: 'a' })).toBe(0);
    expect(await stored()).toEqual({ startedAt: 1_000_000, count: 9 });

    // Counted ahead while the window still ran; it ended before the request was counted: the new window is a write, committed.
    now = 1_059_999;
    const state = await one.transaction(() => {
      now = 1_060_000;
      return limiters[0].consume('account:a');
    }, 'request', READ('a'));
    expect(state).toMatchObject({ remaining: 4, limited: false });
    expect(await stored()).toEqual({ startedAt: 1_060_000, count: 1 });
    expect(one.batchStats!().reads).toMatchObject({ committed: 1, retried: 0 });
  }, 60_000);

  it('loads afresh once its connection broke: a database that lost its last commit (restarted with synchronous_commit = off) hands its change number out again, and no copy skips it', async () => {
    const { url, one, two, oneNumber } = await twoStores();
    await two.transaction(() => void things(two, 'a').insert({ id: 't1' }), 'request', { account: 'a' });
    expect(await one.transaction(() => things(one, 'a').get('t1')?.id, 'request', { account: 'a' })).toBe('t1');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // The database loses that commit, rows and number, as a crash before its WAL was flushed
      // would; every session ends, as in a restart.
      const last = Number((await admin.query<{ change: string }>('SELECT change FROM shipmock_head')).rows[0].change);
      for (const table of ['shipmock_items', 'shipmock_collections', 'shipmock_values']) await admin.query(`DELETE FROM ${table} WHERE change = $1`, [last]);
      await admin.query('UPDATE shipmock_head SET change = change - 1');
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'shipmock:%'");
      await until('the batch connection is gone', () => connectionsOf(url, oneNumber), (pids) => pids.length === 0, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // The same change number, given to another write.
      await two.transaction(() => void things(two, 'a').insert({ id: 't2' }), 'request', { account: 'a' });
      expect(Number((await admin.query<{ change: string }>('SELECT change FROM shipmock_head')).rows[0].change)).toBe(last);
    } finally {
      await admin.end();
    }
    const seen = (store: Store) => store.transaction(() => [...things(store, 'a').values()].map((thing) => thing.id), 'request', { account: 'a' });
    expect(await seen(one)).toEqual(['t2']);
    expect(await seen(two)).toEqual(['t2']);
  }, 60_000);
});

/** Two `shipmock serve` processes on one new database. */
async function twoProcesses(args: string[]): Promise<{ url: string; p: ChildMock; q: ChildMock }> {
  const url = await cluster.createDatabase();
  const [p, q] = await Promise.all([startChild(['--data', url, ...args]), startChild(['--data', url, ...args])]);
  running.push(p, q);
  return { url, p, q };
}

const batchesOf = (mock: ChildMock) => expectStatus(call(mock.url, 'GET', '/__admin/store/batches', { admin: true }), 200, 'store batches');

describe('reads without a lock across processes, through HTTP', () => {
  it('reads on one process at once what the other acknowledged, each GET a read batch', async () => {
    const { p, q } = await twoProcesses(['--rate-limit', 'off']);
    const account = await newAccount(p);
    const before = await batchesOf(q);
    for (let i = 0; i < 20; i++) {
      const [writer, reader] = i % 2 ? [q, p] : [p, q];
      const created = await expectStatus(call(writer.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `Person ${i}` } }), 201, `address ${i}`);
      const read = await call(reader.url, 'GET', `/v1/addresses/${created.id}`, { auth: account.auth });
      expect(read.status, `address ${i} written on one process, read at once on the other`).toBe(200);
      expect(read.body.name).toBe(`Person ${i}`);
      const listed = await expectStatus(call(reader.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }), 200, 'list');
      expect(listed.items).toHaveLength(i + 1);
    }
    const after = await batchesOf(q);
    // Q's 20 GETs (one after another: a batch each) ran as reads; its account batches are its 10 POSTs (and any read run again).
    expect(after.reads.batches - before.reads.batches).toBe(20);
    expect(after.byLock.account - before.byLock.account).toBe(10 + after.reads.retried - before.reads.retried);
  }, 120_000);

  it('records a tracker step that a GET catches up exactly once, whichever processes read it at the same time, and every GET is answered', async () => {
    const { p, q } = await twoProcesses(['--clock', 'manual', '--clock-start', '2026-03-02T08:00:00Z', '--rate-limit', 'off']);
    const account = await newAccount(p);
    const carrierDefinition = await expectStatus(call(p.url, 'POST', '/v1/carrier-definitions', { auth: account.auth, body: { carrierId: dhl, name: 'DHL' } }), 201, 'carrier definition');
    const serviceDefinition = await expectStatus(
      call(q.url, 'POST', '/v1/service-definitions', { auth: account.auth, body: { carrierDefinitionId: carrierDefinition.id, serviceId: dhlPaket, name: 'DHL Paket' } }),
      201,
      'service definition',
    );
    const channel = await expectStatus(call(p.url, 'POST', '/v1/shipment-channels', { auth: account.auth, body: { name: 'ZPL', documentRendering: { labelFormat: 'ZPL', labelSize: 'LABEL_4X6' } } }), 201, 'channel');
    const created = await expectStatus(
      call(q.url, 'POST', '/v1/shipment-bookings/inline', {
        auth: account.auth,
        body: { serviceDefinitionId: serviceDefinition.id, shipmentChannelId: channel.id, sender: berlin, receiver: munich, parcels: [{ weight: 2.5 }], reference: 'READ-1' },
      }),
      201,
      'booking',
    );
    const booking = await expectStatus(call(p.url, 'GET', `/v1/shipment-bookings/${created.id}`, { auth: account.auth }), 200, 'booking on P');
    const [trackerId] = booking.trackerIds;
    await expectStatus(call(p.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'P7D' } }), 200, 'advance clock');
    // Tokens live four hours of virtual time: a new one.
    const token = await expectStatus(call(q.url, 'POST', `/v1/accounts/${account.id}/tokens`, { auth: q.basic, body: { grantType: 'client_credentials' } }), 200, 'account token');
    const auth = `Bearer ${token.accessToken}`;
    // Both processes read the tracker at once, many times: some of these GETs catch the tracker up.
    const before = await Promise.all([p, q].map(batchesOf));
    const answers: Answer[] = await Promise.all(Array.from({ length: 24 }, (_, i) => call((i % 2 ? q : p).url, 'GET', `/v1/trackers/${trackerId}`, { auth })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(24).fill(200));
    // They ran as reads on both (some committed a catch-up, or ran again locked when the other had).
    const after = await Promise.all([p, q].map(batchesOf));
    for (const i of [0, 1]) expect(after[i].reads.batches).toBeGreaterThan(before[i].reads.batches);
    const trackers = await Promise.all([p, q].map((mock) => expectStatus(call(mock.url, 'GET', `/v1/trackers/${trackerId}`, { auth }), 200, 'tracker')));
    expect(trackers[0].events.map((event: { status: string }) => event.status)).toEqual(['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED']);
    expect(trackers[1]).toEqual(trackers[0]);
    // Every answer showed a prefix of the one history (no scan recorded twice, none lost).
    for (const answer of answers) expect(answer.body.events).toEqual(trackers[0].events.slice(0, answer.body.events.length));
    const published = (await Promise.all([p, q].map((mock) => expectStatus(call(mock.url, 'GET', '/__admin/events?limit=500', { admin: true }), 200, 'events'))))
      .flatMap((answer) => answer.items)
      .filter((event: { topic: string; type: string; payload?: { id?: string } }) => event.topic === 'TRACKER' && event.type === 'UPDATED' && event.payload?.id === trackerId);
    expect(published).toHaveLength(4);
  }, 120_000);

  it('counts a rate limit exactly across the two, reads included', async () => {
    const { p, q } = await twoProcesses(['--rate-limit', '20/60s', '--clock', 'manual']);
    const account = await newAccount(p);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => call((i % 2 ? q : p).url, 'GET', '/v1/addresses', { auth: account.auth })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(20);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(20);
    // Each read was counted in its own pull, under its account's lock: no read batch committed after it.
    for (const mock of [p, q]) expect((await batchesOf(mock)).reads).toMatchObject({ committed: 0, retried: 0, batches: expect.any(Number) });
    expect((await batchesOf(p)).reads.batches + (await batchesOf(q)).reads.batches).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
