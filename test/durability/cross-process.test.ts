import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';
import { createRandom } from '../../src/random/random.js';
import { openSharedSqliteStore } from '../../src/store/sqlite-shared-store.js';
import { throwawayPostgresForFile, type ThrowawayPostgres } from '../support/postgres.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { bookingBody, call, expectStatus, newAccount, startChild, until, type Answer, type BookingKit, type ChildMock } from './child-mock.js';
import { expectEachTrackerStepDeliveredOnce } from './tracker-deliveries.js';

/**
 * Issue 27: cross-process correctness of a shared sandbox. Each test starts real `shipmock serve`
 * processes on a fresh database of a throwaway PostgreSQL cluster (and again on a fresh file in
 * SQLite's shared layout, whose reads go without a lock too) and races them against one
 * another through HTTP; every answer is checked by the mocks themselves against the contract
 * (--response-validation defaults to error: an answer outside the contract is a 500, which these
 * tests count as a failure). No assertion depends on wall time: order is proven by what the test
 * process saw (a response that arrived before a request was sent), and waits are bounded polls.
 */
const dhl = catalogueIds.carrier('DHL_PARCEL');
const dhlPaket = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET');
const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const munich = { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' };
const RULE_VIOLATION = 'https://shipmock.dev/problems/rule-violation';

let cluster: ThrowawayPostgres;
const running: ChildMock[] = [];
throwawayPostgresForFile(running, (started) => (cluster = started));

/** A new shared sandbox: a database of the cluster, or a file in SQLite's shared layout (what `--workers` creates). */
const newSandbox = {
  postgres: () => cluster.createDatabase(),
  sqlite: async () => {
    const path = join(sqliteDir, `sandbox-${++sandboxes}.db`);
    (await openSharedSqliteStore(path)).store.close();
    return path;
  },
};
type Sandbox = keyof typeof newSandbox;
const sqliteDir = mkdtempSync(join(tmpdir(), 'shipmock-cross-process-'));
let sandboxes = 0;
afterAll(() => rmSync(sqliteDir, { recursive: true, force: true }));

/** `count` processes on a new sandbox, started together. */
async function processes(sandbox: Sandbox, count: number, args: string[]): Promise<ChildMock[]> {
  const data = await newSandbox[sandbox]();
  const mocks = await Promise.all(Array.from({ length: count }, () => startChild(['--data', data, ...args])));
  running.push(...mocks);
  return mocks;
}

/** What a booking needs (carrier and service definitions, a channel, two addresses), each made on another process. */
async function bookingKit(mocks: ChildMock[], auth: string): Promise<BookingKit> {
  const on = (i: number) => mocks[i % mocks.length].url;
  const create = async (i: number, path: string, body: unknown) => (await expectStatus(call(on(i), 'POST', path, { auth, body }), 201, `POST ${path}`)).id as string;
  const carrierDefinitionId = await create(0, '/v1/carrier-definitions', { carrierId: dhl, name: 'DHL' });
  const serviceDefinitionId = await create(1, '/v1/service-definitions', { carrierDefinitionId, serviceId: dhlPaket, name: 'DHL Paket' });
  const shipmentChannelId = await create(2, '/v1/shipment-channels', { name: 'ZPL', documentRendering: { labelFormat: 'ZPL', labelSize: 'LABEL_4X6' } });
  const senderId = await create(3, '/v1/addresses', berlin);
  const receiverId = await create(4, '/v1/addresses', munich);
  return { serviceDefinitionId, shipmentChannelId, senderId, receiverId };
}

/** Every item of a list endpoint, page by page (limit 100). */
async function listAll(url: string, path: string, auth: string): Promise<{ id: string }[]> {
  const items: { id: string }[] = [];
  let cursor: string | undefined;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page = await expectStatus(call(url, 'GET', `${path}${separator}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { auth }), 200, `list ${path}`);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

const idsOf = (items: { id: string }[]) => items.map((item) => item.id);

describe.each([
  ['one PostgreSQL', 'postgres'],
  ["one SQLite file in the shared layout (every locked batch holds the file's write lock)", 'sqlite'],
] as const)('cross-process correctness of a shared sandbox (three or four processes, %s)', (_name, sandbox) => {
  it('books one parcel exactly once when 50 bookings of it race over three processes (three accounts at once)', async () => {
    const mocks = await processes(sandbox, 3, ['--rate-limit', 'off']);
    // Three accounts race at the same moment, each on its own parcel: a lock per account must
    // still give one booking per parcel, and a global one must not mix the accounts up.
    const setups = await Promise.all(
      mocks.map(async (home) => {
        const account = await newAccount(home);
        const kit = await bookingKit(mocks, account.auth);
        const parcel = await expectStatus(call(home.url, 'POST', '/v1/parcels', { auth: account.auth, body: { weight: 2.5, reference: 'RACE' } }), 201, 'parcel');
        return { account, kit, parcelId: parcel.id as string };
      }),
    );
    const races = await Promise.all(
      setups.map(({ account, kit, parcelId }, a) =>
        Promise.all(Array.from({ length: 50 }, (_, i) => call(mocks[(i + a) % 3].url, 'POST', '/v1/shipment-bookings', { auth: account.auth, body: bookingBody(kit, [parcelId], `RACE-${i}`) }))),
      ),
    );
    for (const [a, answers] of races.entries()) {
      const { account, parcelId } = setups[a];
      const won = answers.filter((answer) => answer.status === 201);
      expect(won, `account ${a}: exactly one booking of the parcel succeeds`).toHaveLength(1);
      const winner = won[0].body.id as string;
      const lost = answers.filter((answer) => answer.status !== 201);
      expect(lost).toHaveLength(49);
      // Every loser was refused because of the winner (not for any other reason): the problem names it.
      for (const answer of lost) {
        expect(answer.status).toBe(400);
        expect(answer.body.type).toBe(RULE_VIOLATION);
        expect(answer.body.detail).toBe(`Parcel ${parcelId} is already booked in Shipment Booking ${winner}`);
      }
      // The stored state, on every process: one booking, the parcel booked by it, one tracker, billed once.
      for (const mock of mocks) {
        expect(idsOf(await listAll(mock.url, '/v1/shipment-bookings', account.auth))).toEqual([winner]);
        const parcel = await expectStatus(call(mock.url, 'GET', `/v1/parcels/${parcelId}`, { auth: account.auth }), 200, 'parcel');
        expect(parcel.shipmentBookingId).toBe(winner);
        expect(await listAll(mock.url, '/v1/trackers', account.auth)).toHaveLength(1);
      }
      const published = (
        await Promise.all(mocks.map(async (mock) => (await expectStatus(call(mock.url, 'GET', `/__admin/events?account_id=${account.id}&limit=500`, { admin: true }), 200, 'events')).items))
      ).flat() as { topic: string; type: string }[];
      expect(published.filter((event) => event.topic === 'SHIPMENT_BOOKING' && event.type === 'CREATED')).toHaveLength(1);
      expect(published.filter((event) => event.topic === 'PARCEL' && event.type === 'USAGE')).toHaveLength(1);
      expect(published.filter((event) => event.topic === 'TRACKER' && event.type === 'CREATED')).toHaveLength(1);
    }
  }, 60_000);

  it('counts a rate limit of N over three processes: exactly N pass per account and window, each remaining count handed out once', async () => {
    const N = 37;
    const mocks = await processes(sandbox, 3, ['--rate-limit', `${N}/60s`, '--clock', 'manual']);
    const accounts = await Promise.all(mocks.slice(0, 2).map((mock) => newAccount(mock)));
    // A burst per account, all in flight at once, spread over the three: writes in one window, reads in the next.
    const burst = (write: boolean) =>
      Promise.all(
        accounts.map((account, a) =>
          Promise.all(
            Array.from({ length: 3 * N }, (_, i) => {
              const url = mocks[(i + a) % 3].url;
              return write ? call(url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `Burst ${i}` } }) : call(url, 'GET', '/v1/addresses?limit=1', { auth: account.auth });
            }),
          ),
        ),
      );
    const created = accounts.map(() => new Set<string>());
    const check = (results: Answer[][], status: number) => {
      for (const [a, answers] of results.entries()) {
        const passed = answers.filter((answer) => answer.status === status);
        const limited = answers.filter((answer) => answer.status === 429);
        expect(passed, `account ${a}: exactly N requests pass`).toHaveLength(N);
        expect(limited).toHaveLength(2 * N);
        // Each passing request drew its own count from the one shared window: N-1, N-2, … 0, each once.
        const remaining = passed.map((answer) => Number(answer.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
        expect(remaining).toEqual(Array.from({ length: N }, (_, i) => i));
        for (const answer of limited) expect(answer.body.type).toBe('https://shipmock.dev/problems/rate-limited');
        if (status === 201) for (const answer of passed) created[a].add(answer.body.id);
      }
    };
    check(await burst(true), 201);
    // The window ends once for everyone: after it, exactly N again.
    await expectStatus(call(mocks[1].url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'PT61S' } }), 200, 'advance clock');
    check(await burst(false), 200);
    // Every accepted write is stored, and no refused one (listed in the next window, on every process).
    await expectStatus(call(mocks[2].url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'PT61S' } }), 200, 'advance clock');
    for (const [a, account] of accounts.entries()) {
      expect(created[a].size).toBe(N);
      for (const mock of mocks) {
        const listed = idsOf(await listAll(mock.url, '/v1/addresses', account.auth));
        expect(listed).toHaveLength(N);
        expect(new Set(listed)).toEqual(created[a]);
      }
    }
  }, 60_000);

  it('resets an account on one process while two others write to it: what was acknowledged before the reset is gone, what was sent after it stays', async () => {
    const mocks = await processes(sandbox, 3, ['--rate-limit', 'off']);
    const [resetter, ...writers] = mocks;
    const target = await newAccount(writers[0]);
    const bystander = await newAccount(writers[1]);
    // A logical clock of the test process: one event loop, so a smaller tick happened before.
    let tick = 0;
    const now = () => ++tick;
    interface Write {
      id: string;
      sent: number;
      acked: number;
    }
    const writes: { target: Write[]; bystander: Write[] } = { target: [], bystander: [] };
    const resets: { sent: number; acked: number }[] = [];
    let stop = false;
    const writer = async (mock: ChildMock, account: { auth: string }, into: Write[], label: string) => {
      for (let i = 0; !stop; i++) {
        const sent = now();
        const created = await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `${label} ${i}` } }), 201, `write ${label} ${i}`);
        into.push({ id: created.id, sent, acked: now() });
      }
    };
    const loops = [
      ...writers.flatMap((mock, w) => [0, 1].map((k) => writer(mock, target, writes.target, `target ${w}.${k}`))),
      writer(writers[1], bystander, writes.bystander, 'bystander'),
    ];
    const driver = (async () => {
      try {
        for (let round = 0; round < 2; round++) {
          // Enough writes acknowledged since the last reset, then the reset.
          const since = resets.at(-1)?.acked ?? 0;
          await until('writes acknowledged before the reset', () => writes.target.filter((w) => w.sent > since).length, (n) => n >= 15, 45_000);
          const sent = now();
          await expectStatus(call(resetter.url, 'POST', '/__admin/reset', { admin: true, body: { accountId: target.id } }), 204, 'reset the account');
          resets.push({ sent, acked: now() });
        }
        const last = resets.at(-1)!.acked;
        await until('writes sent after the last reset acknowledged', () => writes.target.filter((w) => w.sent > last).length, (n) => n >= 15, 45_000);
      } finally {
        stop = true;
      }
    })();
    await Promise.all([driver, ...loops]);

    // Gone: acknowledged before some reset was sent. Kept: sent after every reset was acknowledged.
    // A write that overlapped the last reset it could have met may go either way.
    const gone = writes.target.filter((w) => resets.some((r) => w.acked < r.sent));
    const kept = writes.target.filter((w) => resets.every((r) => r.acked < w.sent));
    const either = writes.target.filter((w) => !gone.includes(w) && !kept.includes(w));
    expect(gone.length).toBeGreaterThanOrEqual(30);
    expect(kept.length).toBeGreaterThanOrEqual(15);
    const allIds = [...writes.target, ...writes.bystander].map((w) => w.id);
    expect(new Set(allIds).size, 'no id handed out twice').toBe(allIds.length);
    const keptIds = new Set(kept.map((w) => w.id));
    const eitherIds = new Set(either.map((w) => w.id));
    for (const mock of mocks) {
      const listed = idsOf(await listAll(mock.url, '/v1/addresses', target.auth));
      expect(new Set(listed).size, 'no address listed twice').toBe(listed.length);
      expect(listed.filter((id) => !keptIds.has(id) && !eitherIds.has(id)), 'addresses acknowledged before a reset, listed after it').toEqual([]);
      expect([...keptIds].filter((id) => !listed.includes(id)), 'addresses sent after the reset, lost').toEqual([]);
      for (const w of gone) expect((await call(mock.url, 'GET', `/v1/addresses/${w.id}`, { auth: target.auth })).status, `address ${w.id} after the reset`).toBe(404);
      for (const w of kept) expect((await call(mock.url, 'GET', `/v1/addresses/${w.id}`, { auth: target.auth })).status, `address ${w.id} after the reset`).toBe(200);
      // The other account was not touched.
      expect(new Set(idsOf(await listAll(mock.url, '/v1/addresses', bystander.auth)))).toEqual(new Set(writes.bystander.map((w) => w.id)));
    }
    expect(writes.bystander.length).toBeGreaterThan(0);
  }, 120_000);

  it('advances the clock while accounts work in parallel on the three: every tracker step is recorded, published and delivered exactly once', async () => {
    const receiver = await startWebhookReceiver();
    // Account tokens outlive the week the clock moves (the default is 4 h of virtual time).
    const mocks = await processes(sandbox, 3, ['--rate-limit', 'off', '--clock', 'manual', '--clock-start', '2026-03-02T08:00:00Z', '--token-ttl', 'account=P30D']);
    const ACCOUNTS = 6;
    const BOOKINGS = 3;
    // Each account lives mostly on one process.
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, async (_, a) => {
        const home = mocks[a % 3];
        const account = await newAccount(home);
        const auth = account.auth;
        const as = (url: string, method: string, path: string, body?: unknown) => call(url, method, path, { auth, body });
        await expectStatus(as(home.url, 'POST', '/v1/event-channels', { name: 'trackers', topics: ['TRACKER'], webhook: { url: receiver.url } }), 201, 'event channel');
        const kit = await bookingKit(mocks, auth);
        const trackerIds: string[] = [];
        for (let b = 0; b < BOOKINGS; b++) {
          const booked = await expectStatus(as(mocks[(a + b) % 3].url, 'POST', '/v1/shipment-bookings/inline', { serviceDefinitionId: kit.serviceDefinitionId, shipmentChannelId: kit.shipmentChannelId, sender: berlin, receiver: munich, parcels: [{ weight: 1 + b }], reference: `A${a}-B${b}` }), 201, 'booking');
          const booking = await expectStatus(as(mocks[(a + b + 1) % 3].url, 'GET', `/v1/shipment-bookings/${booked.id}`), 200, 'booking');
          trackerIds.push(...booking.trackerIds);
        }
        return { id: account.id, home, as, trackerIds };
      }),
    );
    const trackerIds = accounts.flatMap((account) => account.trackerIds);
    expect(trackerIds).toHaveLength(ACCOUNTS * BOOKINGS);

    // The clock moves a week in 6-hour steps, from whichever process is next, while every account
    // reads its trackers (a read catches a tracker up: it races the clock's timers) and writes.
    let moving = true;
    const random = createRandom(27);
    const worker = async (account: (typeof accounts)[number], w: number) => {
      for (let i = 0; moving; i++) {
        const url = mocks[(w + i) % 3].url;
        const trackerId = account.trackerIds[Math.floor(random.next() * account.trackerIds.length)];
        if (i % 4 === 3) await expectStatus(account.as(url, 'POST', '/v1/addresses', { ...berlin, name: `Worker ${w} ${i}` }), 201, 'address');
        else if (i % 2) await expectStatus(account.as(url, 'GET', '/v1/trackers?limit=10'), 200, 'trackers');
        else await expectStatus(account.as(url, 'GET', `/v1/trackers/${trackerId}`), 200, 'tracker');
      }
    };
    const failed: Error[] = [];
    const workers = accounts.map((account, w) => worker(account, w).catch((error: Error) => void failed.push(error)));
    for (let step = 0; step < 28; step++) {
      await expectStatus(call(mocks[step % 3].url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'PT6H' } }), 200, 'advance clock');
    }
    moving = false;
    await Promise.all(workers);
    expect(failed.map((error) => error.message)).toEqual([]);

    // Every process shows every tracker with each scan once, in order, all delivered.
    const journey = ['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED'];
    for (const account of accounts) {
      for (const trackerId of account.trackerIds) {
        const seen = await Promise.all(mocks.map(async (mock) => expectStatus(account.as(mock.url, 'GET', `/v1/trackers/${trackerId}`), 200, 'tracker')));
        expect(seen[0].events.map((event: { status: string }) => event.status)).toEqual(journey);
        expect(seen[1]).toEqual(seen[0]);
        expect(seen[2]).toEqual(seen[0]);
      }
    }
    // Each scan was published once (whichever process recorded it) and delivered once.
    await expectEachTrackerStepDeliveredOnce(mocks, receiver, trackerIds, journey.length);
    await receiver.close();
  }, 120_000);

  it('hammers one account from four processes with creates and reads: nothing lost or doubled, ids unique, lists exact everywhere', async () => {
    const mocks = await processes(sandbox, 4, ['--rate-limit', 'off']);
    const account = await newAccount(mocks[0]);
    const random = createRandom(5);
    const acked = { addresses: [] as { id: string; on: number }[], parcels: [] as { id: string; on: number }[] };
    const failures: string[] = [];
    const OPERATIONS = 600;
    let started = 0;
    const client = async (c: number) => {
      const on = c % 4;
      const url = mocks[on].url;
      while (started < OPERATIONS) {
        const n = started++;
        const roll = random.next();
        if (roll < 0.4) {
          const created = await expectStatus(call(url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `Client ${c} ${n}` } }), 201, 'address');
          acked.addresses.push({ id: created.id, on });
        } else if (roll < 0.6) {
          const created = await expectStatus(call(url, 'POST', '/v1/parcels', { auth: account.auth, body: { weight: 1, reference: `P-${n}` } }), 201, 'parcel');
          acked.parcels.push({ id: created.id, on });
        } else if (roll < 0.85) {
          // Read-your-writes across processes: anything acknowledged anywhere is read here.
          const pool = roll < 0.75 ? acked.addresses : acked.parcels;
          const item = pool[Math.floor(random.next() * pool.length)];
          if (!item) continue;
          const path = `${pool === acked.addresses ? '/v1/addresses' : '/v1/parcels'}/${item.id}`;
          const read = await call(url, 'GET', path, { auth: account.auth });
          if (read.status !== 200 || read.body.id !== item.id) failures.push(`${path} (written on ${item.on}) read on ${on}: ${read.status}`);
        } else {
          // A whole list holds at least every address acknowledged before it was asked for, once each.
          const before = acked.addresses.map((a) => a.id);
          const listed = idsOf(await listAll(url, '/v1/addresses', account.auth));
          if (new Set(listed).size !== listed.length) failures.push(`list on ${on} repeats an address`);
          const missing = before.filter((id) => !listed.includes(id));
          if (missing.length) failures.push(`list on ${on} misses ${missing.length} acknowledged addresses`);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, c) => client(c)));
    expect(failures).toEqual([]);
    expect(acked.addresses.length).toBeGreaterThan(100);
    expect(acked.parcels.length).toBeGreaterThan(50);
    const all = [...acked.addresses, ...acked.parcels].map((item) => item.id);
    expect(new Set(all).size, 'ids unique').toBe(all.length);
    const lists: string[][] = [];
    for (const mock of mocks) {
      const addresses = idsOf(await listAll(mock.url, '/v1/addresses', account.auth));
      const parcels = idsOf(await listAll(mock.url, '/v1/parcels', account.auth));
      expect(addresses).toHaveLength(acked.addresses.length);
      expect(new Set(addresses)).toEqual(new Set(acked.addresses.map((a) => a.id)));
      expect(parcels).toHaveLength(acked.parcels.length);
      expect(new Set(parcels)).toEqual(new Set(acked.parcels.map((p) => p.id)));
      lists.push([...addresses, ...parcels]);
    }
    // One order everywhere.
    for (const list of lists.slice(1)) expect(list).toEqual(lists[0]);
  }, 120_000);
});
