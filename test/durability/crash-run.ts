import { expect } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';
import { createRandom } from '../../src/random/random.js';
import { bookingBody, call, companyAuth, expectStatus, startChild, type BookingKit, type ChildMock } from './child-mock.js';

/**
 * The crash test of the durable stores: a mock on a --data store (a SQLite file, a PostgreSQL
 * database) is killed with SIGKILL at random moments (seeded: SHIPMOCK_CRASH_SEED reproduces a
 * run) during a write-heavy run, restarted on the same store, and checked against what the
 * client saw acknowledged: every acknowledged write is there, nothing half done is visible, no
 * id or tracking number is issued twice, bookings still book.
 */
export const CRASH_SEED = Number(process.env.SHIPMOCK_CRASH_SEED ?? Date.now() % 1_000_000);
export const KILLS = 5;
const dhl = catalogueIds.carrier('DHL_PARCEL');
const dhlPaket = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET');
const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const munich = { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' };

/** What the client saw acknowledged, over every run of the mock. */
interface Ledger {
  accounts: Map<string, { auth: string }>;
  kits: Map<string, BookingKit>;
  bookings: Map<string, { accountId: string; trackingNumbers?: string[] }>;
  /** Every acknowledged create: the path that reads it back → the account whose token reads it (null: the company's). */
  written: Map<string, string | null>;
  /** Virtual time after each acknowledged clock move. */
  clockMoves: number[];
  /** Every id and tracking number ever acknowledged: a repeat is a reissued id. */
  issued: Set<string>;
  reused: string[];
}

const acknowledged = (ledger: Ledger) => ledger.written.size + ledger.clockMoves.length;

/** Runs the crash test against `data` (a --data value); `started` learns of each mock so the caller can kill it on failure. */
export async function crashRun(data: string, started: (mock: ChildMock | undefined) => void): Promise<void> {
  let mock: ChildMock | undefined;
  const track = (next: ChildMock | undefined) => {
    mock = next;
    started(next);
    return next;
  };
  console.log(`crash test seed ${CRASH_SEED} (SHIPMOCK_CRASH_SEED=${CRASH_SEED} repeats it)`);
  const random = createRandom(CRASH_SEED);
  const ledger: Ledger = { accounts: new Map(), kits: new Map(), bookings: new Map(), written: new Map(), clockMoves: [], issued: new Set(), reused: [] };
  const issue = (value: string) => {
    if (ledger.issued.has(value)) ledger.reused.push(value);
    ledger.issued.add(value);
  };
  const report: string[] = [];

  for (let run = 0; run < KILLS; run++) {
    track(await startChild(['--data', data, '--seed', '7', '--clock', 'manual', '--clock-start', '2026-03-02T08:00:00Z']));
    const recovered = await verify(mock!, ledger);
    report.push(`run ${run}: ${recovered.recovered} of ${acknowledged(ledger)} acknowledged writes recovered, ${recovered.missing.length} missing`);
    expect(recovered.missing).toEqual([]);
    expect(recovered.recovered).toBe(acknowledged(ledger));
    const killAfter = 150 + Math.floor(random.next() * 1200);
    const before = acknowledged(ledger);
    await writeUntilKilled(mock!, ledger, random, issue, killAfter);
    report.push(`  killed after ${killAfter} ms: ${acknowledged(ledger) - before} writes acknowledged in this run`);
  }

  // The last restart: everything there, and bookings still book with new numbers (no 500).
  track(await startChild(['--data', data, '--seed', '7', '--clock', 'manual']));
  const final = await verify(mock!, ledger);
  expect(final.missing).toEqual([]);
  const acknowledgedBeforeRestart = acknowledged(ledger);
  expect(final.recovered).toBe(acknowledgedBeforeRestart);
  const companyBearer = await companyAuth(mock!);
  // An account with its booking kit, else any acknowledged one (a slow machine may have killed
  // every run before a kit was made; book() makes it).
  const [accountId] = [...ledger.kits.keys(), ...ledger.accounts.keys()];
  expect(accountId, 'no account was acknowledged in any run').toBeDefined();
  for (let i = 0; i < 3; i++) {
    const booking = await book(mock!, ledger, accountId, issue, companyBearer);
    expect(booking.trackingNumbers.length).toBeGreaterThan(0);
  }
  report.push(`final: ${final.recovered} acknowledged writes recovered of ${acknowledgedBeforeRestart} acknowledged; ids reused: ${ledger.reused.length}`);
  console.log(report.join('\n'));
  expect(ledger.reused).toEqual([]);
  expect(await mock!.stop()).toBe(0);
  track(undefined);
}


/**
 * Reads back every acknowledged write through HTTP (tokens issued before the kill must still
 * work) and counts what it finds; anything missing, or half done, is listed.
 */
async function verify(mock: ChildMock, ledger: Ledger): Promise<{ recovered: number; missing: string[] }> {
  const missing: string[] = [];
  let recovered = 0;
  const companyBearer = await companyAuth(mock);
  const authOf = (accountId: string | null) => (accountId === null ? companyBearer : ledger.accounts.get(accountId)!.auth);
  for (const [path, accountId] of ledger.written) {
    const answer = await call(mock.url, 'GET', path, { auth: authOf(accountId) });
    if (answer.status !== 200) {
      missing.push(`${path} → ${answer.status}`);
      continue;
    }
    const booking = ledger.bookings.get(path.slice('/v1/shipment-bookings/'.length));
    if (path.startsWith('/v1/shipment-bookings/') && booking?.trackingNumbers && JSON.stringify(answer.body?.trackingNumbers) !== JSON.stringify(booking.trackingNumbers)) {
      missing.push(`${path}: tracking numbers ${JSON.stringify(answer.body?.trackingNumbers)}, acknowledged ${JSON.stringify(booking.trackingNumbers)}`);
      continue;
    }
    recovered++;
  }
  if (ledger.clockMoves.length) {
    const clock = await call(mock.url, 'GET', '/__admin/clock', { admin: true });
    for (const at of ledger.clockMoves) {
      if (clock.body?.epochMs >= at) recovered++;
      else missing.push(`clock ${clock.body?.now} is before the acknowledged ${new Date(at).toISOString()}`);
    }
  }
  // Nothing half done: every booking the mock shows (acknowledged or not) has its label documents.
  for (const [accountId, { auth }] of ledger.accounts) {
    const list = await call(mock.url, 'GET', '/v1/shipment-bookings?limit=100', { auth });
    if (list.status !== 200) missing.push(`list bookings of ${accountId} → ${list.status}`);
    for (const booking of list.body?.items ?? []) {
      for (const documentId of booking.documentIds ?? []) {
        const document = await call(mock.url, 'GET', `/v1/documents/${documentId}`, { auth });
        if (document.status !== 200) missing.push(`booking ${booking.id}: document ${documentId} → ${document.status}`);
      }
      if (booking.status === 'BOOKED' && !booking.trackingNumbers?.length) missing.push(`booking ${booking.id} is BOOKED without tracking numbers`);
    }
  }
  return { recovered, missing };
}

async function book(mock: ChildMock, ledger: Ledger, accountId: string, issue: (value: string) => void, companyBearer: string): Promise<{ id: string; trackingNumbers: string[] }> {
  const { auth } = ledger.accounts.get(accountId)!;
  let kit = ledger.kits.get(accountId);
  if (!kit) {
    const create = async (path: string, body: unknown) => {
      const created = await expectStatus(call(mock.url, 'POST', path, { auth, body }), 201, `POST ${path}`);
      issue(created.id);
      ledger.written.set(`${path}/${created.id}`, accountId);
      return created.id as string;
    };
    const carrierDefinitionId = await create('/v1/carrier-definitions', { carrierId: dhl, name: 'DHL test' });
    const serviceDefinitionId = await create('/v1/service-definitions', { carrierDefinitionId, serviceId: dhlPaket, name: 'DHL Paket' });
    const shipmentChannelId = await create('/v1/shipment-channels', { name: 'PDF channel', documentRendering: { labelFormat: 'PDF', labelSize: 'A6' } });
    const senderId = await create('/v1/addresses', berlin);
    const receiverId = await create('/v1/addresses', munich);
    kit = { serviceDefinitionId, shipmentChannelId, senderId, receiverId };
    ledger.kits.set(accountId, kit);
  }
  const parcel = await expectStatus(call(mock.url, 'POST', '/v1/parcels', { auth, body: { weight: 2.5, reference: 'P-1' } }), 201, 'POST /v1/parcels');
  issue(parcel.id);
  ledger.written.set(`/v1/parcels/${parcel.id}`, accountId);
  const created = await expectStatus(
    call(mock.url, 'POST', '/v1/shipment-bookings', {
      auth,
      body: bookingBody(kit, [parcel.id], 'ORDER-1'),
    }),
    201,
    'POST /v1/shipment-bookings',
  );
  issue(created.id);
  ledger.written.set(`/v1/shipment-bookings/${created.id}`, accountId);
  const entry: { accountId: string; trackingNumbers?: string[] } = { accountId };
  ledger.bookings.set(created.id, entry);
  const got = await expectStatus(call(mock.url, 'GET', `/v1/shipment-bookings/${created.id}`, { auth }), 200, 'GET booking');
  entry.trackingNumbers = got.trackingNumbers;
  for (const number of got.trackingNumbers) issue(`tracking:${number}`);
  void companyBearer;
  return { id: created.id, trackingNumbers: got.trackingNumbers };
}

/** Four clients write until the mock is killed `killAfter` ms in; failed calls are not acknowledged. */
async function writeUntilKilled(mock: ChildMock, ledger: Ledger, random: ReturnType<typeof createRandom>, issue: (value: string) => void, killAfter: number): Promise<void> {
  const companyBearer = await companyAuth(mock);
  let killed = false;
  const newAccount = async () => {
    const created = await expectStatus(
      call(mock.url, 'POST', '/v1/accounts', {
        auth: companyBearer,
        body: {
          alias: 'Warehouse',
          company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
          contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
        },
      }),
      201,
      'POST /v1/accounts',
    );
    issue(created.id);
    ledger.written.set(`/v1/accounts/${created.id}`, null);
    // The account token: used after the restarts too (the token secret is in the file).
    const token = await expectStatus(call(mock.url, 'POST', `/v1/accounts/${created.id}/tokens`, { auth: mock.basic, body: { grantType: 'client_credentials' } }), 200, 'account token');
    ledger.accounts.set(created.id, { auth: `Bearer ${token.accessToken}` });
  };
  const someAccount = () => {
    const ids = [...ledger.accounts.keys()];
    return ids[Math.floor(random.next() * ids.length)];
  };
  const worker = async () => {
    while (!killed) {
      try {
        const roll = random.next();
        if (ledger.accounts.size === 0 || roll < 0.08) await newAccount();
        else if (roll < 0.5) {
          const accountId = someAccount();
          const created = await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: ledger.accounts.get(accountId)!.auth, body: { ...berlin, name: `Person ${roll}` } }), 201, 'POST /v1/addresses');
          issue(created.id);
          ledger.written.set(`/v1/addresses/${created.id}`, accountId);
        } else if (roll < 0.6) {
          const accountId = someAccount();
          const created = await expectStatus(
            call(mock.url, 'POST', '/v1/event-channels', { auth: ledger.accounts.get(accountId)!.auth, body: { name: 'hooks', topics: ['ADDRESS'], webhook: { url: 'https://hooks.example.com/x' } } }),
            201,
            'POST /v1/event-channels',
          );
          issue(created.id);
          ledger.written.set(`/v1/event-channels/${created.id}`, accountId);
        } else if (roll < 0.66) {
          // A minute, not an hour: tokens live 4 h of virtual time, and a run acknowledges hundreds of writes.
          const moved = await expectStatus(call(mock.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'PT1M' } }), 200, 'advance clock');
          ledger.clockMoves.push(moved.epochMs);
        } else {
          await book(mock, ledger, someAccount(), issue, companyBearer);
        }
      } catch (error) {
        // A call cut by the kill was never acknowledged; anything else is a real failure.
        if (killed) return;
        throw error;
      }
    }
  };
  const timer = new Promise<void>((resolve) =>
    setTimeout(async () => {
      killed = true;
      await mock.kill();
      resolve();
    }, killAfter),
  );
  await Promise.all([worker(), worker(), worker(), worker(), timer]);
}
