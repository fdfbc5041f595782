import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';
import { call, expectStatus, newAccount, runToExit, until, type ChildMock, childrenOfEachTest } from './child-mock.js';

/**
 * Issue 27, a bounded working set: a `--data FILE` mock with `--cache-size 2` keeps two accounts
 * in memory and reads the others from its file when a request uses them. Five accounts go
 * through it, over real HTTP: nothing is lost, mixed up or served stale, whether an account is
 * in memory or not.
 */
const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const munich = { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' };
const MANUAL_CLOCK = ['--clock', 'manual', '--clock-start', '2026-03-02T08:00:00Z'];
const dataFile = () => join(mkdtempSync(join(tmpdir(), 'shipmock-cache-')), 'x.db');

const { start, letGo } = childrenOfEachTest();
async function stop(child: ChildMock): Promise<void> {
  letGo(child);
  expect(await child.stop()).toBe(0);
}

type Account = { id: string; auth: string };

/** Every address of an account, page by page (limit 2: cursors across pages). */
async function listAll(mock: ChildMock, account: Account): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await expectStatus(call(mock.url, 'GET', `/v1/addresses?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { auth: account.auth }), 200, 'list addresses');
    names.push(...page.items.map((a: { name: string }) => a.name));
    cursor = page.nextCursor;
  } while (cursor);
  return names;
}

async function addAddresses(mock: ChildMock, account: Account, names: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const name of names) ids.push((await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name } }), 201, 'address')).id);
  return ids;
}

/** Five accounts of four addresses each ("<account>-<n>"), created one account after the other. */
async function fiveAccounts(mock: ChildMock): Promise<{ accounts: Account[]; expected: Map<string, string[]> }> {
  const accounts: Account[] = [];
  const expected = new Map<string, string[]>();
  for (let a = 0; a < 5; a++) {
    const account = await newAccount(mock);
    const names = [0, 1, 2, 3].map((n) => `${a}-${n}`);
    await addAddresses(mock, account, names);
    accounts.push(account);
    expected.set(account.id, names);
  }
  return { accounts, expected };
}

describe('--data FILE --cache-size 2: five accounts through a working set of two', () => {
  it('serves every account, lists and cursors included, before and after eviction, and after a restart', async () => {
    const data = dataFile();
    const first = await start(['--data', data, '--cache-size', '2']);
    const { accounts, expected } = await fiveAccounts(first);
    // Twice round: every account was evicted (five through two) and is read back from the file.
    for (let round = 0; round < 2; round++) {
      for (const account of accounts) expect(await listAll(first, account)).toEqual(expected.get(account.id));
    }
    // Writes to an account read back from the file, then the account evicted again.
    const [a0, a1] = accounts;
    const [later] = await addAddresses(first, a0, ['0-late']);
    expected.get(a0.id)!.push('0-late');
    await expectStatus(call(first.url, 'PUT', `/v1/addresses/${later}`, { auth: a0.auth, body: { ...munich, name: '0-late-moved' } }), 204, 'replace address');
    expected.get(a0.id)![4] = '0-late-moved';
    for (const account of accounts.slice(1)) await listAll(first, account);
    expect(await listAll(first, a0)).toEqual(expected.get(a0.id));
    // Isolation holds for an account read from the file: a1 never sees a0's address.
    expect((await call(first.url, 'GET', `/v1/addresses/${later}`, { auth: a1.auth })).status).toBe(404);
    expect((await expectStatus(call(first.url, 'GET', `/v1/addresses/${later}`, { auth: a0.auth }), 200, 'address')).city).toBe('München');
    await stop(first);

    const second = await start(['--data', data, '--cache-size', '2']);
    for (const account of [...accounts].reverse()) expect(await listAll(second, account)).toEqual(expected.get(account.id));
  });

  it('reads an evicted account from the file and serves a cached one from memory', async () => {
    const data = dataFile();
    const mock = await start(['--data', data, '--cache-size', '2']);
    const { accounts } = await fiveAccounts(mock);
    // a0 was used first: long evicted. a4 was used last: in memory. A change made in the file
    // behind the mock's back shows which is which (the mock never does this itself).
    const renamed = (accountId: string) => {
      const db = new Database(data, { timeout: 5000 });
      try {
        db.prepare("UPDATE items SET body = json_set(body, '$.name', 'renamed in the file') WHERE scope = ? AND collection = 'addresses' AND seq = 1").run(`account:${accountId}`);
      } finally {
        db.close();
      }
    };
    renamed(accounts[0].id);
    renamed(accounts[4].id);
    expect((await listAll(mock, accounts[0]))[0]).toBe('renamed in the file');
    expect((await listAll(mock, accounts[4]))[0]).toBe('4-0');
  });

  it('exports every account, imports them back, resets one and resets all', async () => {
    const data = dataFile();
    const mock = await start(['--data', data, '--cache-size', '2']);
    const { accounts, expected } = await fiveAccounts(mock);
    const exported = await expectStatus(call(mock.url, 'GET', '/__admin/state', { admin: true }), 200, 'export');
    for (const account of accounts) {
      const items = exported.store.scopes[`account:${account.id}`].collections.addresses.items as [number, { name: string }][];
      expect(items.map(([, address]) => address.name)).toEqual(expected.get(account.id));
    }

    // Reset of one account that is not in memory (a0 was used first).
    await expectStatus(call(mock.url, 'POST', '/__admin/reset', { admin: true, body: { accountId: accounts[0].id } }), 204, 'reset a0');
    expect(await listAll(mock, accounts[0])).toEqual([]);
    for (const account of accounts.slice(1)) expect(await listAll(mock, account)).toEqual(expected.get(account.id));

    // Reset of everything: no account keeps an address (the accounts themselves are gone too).
    await expectStatus(call(mock.url, 'POST', '/__admin/reset', { admin: true, body: {} }), 204, 'reset all');
    const empty = await expectStatus(call(mock.url, 'GET', '/__admin/state', { admin: true }), 200, 'export after reset');
    expect(Object.keys(empty.store.scopes).filter((key) => key.startsWith('account:'))).toEqual([]);

    // Import brings all five back, tokens included (the token secret is kept in the file).
    await expectStatus(call(mock.url, 'PUT', '/__admin/state', { admin: true, body: exported }), 204, 'import');
    for (const account of accounts) expect(await listAll(mock, account)).toEqual(expected.get(account.id));
    const again = await expectStatus(call(mock.url, 'GET', '/__admin/state', { admin: true }), 200, 'export after import');
    expect(again.store).toEqual(exported.store);
    await stop(mock);

    const restarted = await start(['--data', data, '--cache-size', '2']);
    const afterRestart = await expectStatus(call(restarted.url, 'GET', '/__admin/state', { admin: true }), 200, 'export after restart');
    expect(afterRestart.store).toEqual(exported.store);
  });

  it('fires the tracker steps of an account that is not in memory when the clock moves, and after a restart', async () => {
    const data = dataFile();
    const mock = await start(['--data', data, '--cache-size', '2', ...MANUAL_CLOCK]);
    const booked: { account: Account; trackerId: string }[] = [];
    for (let a = 0; a < 5; a++) {
      const account = await newAccount(mock);
      const auth = account.auth;
      const carrierDefinition = await expectStatus(call(mock.url, 'POST', '/v1/carrier-definitions', { auth, body: { carrierId: catalogueIds.carrier('DHL_PARCEL'), name: 'DHL' } }), 201, 'carrier definition');
      const serviceDefinition = await expectStatus(call(mock.url, 'POST', '/v1/service-definitions', { auth, body: { carrierDefinitionId: carrierDefinition.id, serviceId: catalogueIds.service('DHL_PARCEL', 'DHL_PAKET'), name: 'DHL Paket' } }), 201, 'service definition');
      const channel = await expectStatus(call(mock.url, 'POST', '/v1/shipment-channels', { auth, body: { name: 'ZPL', documentRendering: { labelFormat: 'ZPL', labelSize: 'LABEL_4X6' } } }), 201, 'channel');
      const body = { serviceDefinitionId: serviceDefinition.id, shipmentChannelId: channel.id, sender: berlin, receiver: munich, parcels: [{ weight: 2.5 }], reference: `R-${a}` };
      const booking = await expectStatus(call(mock.url, 'POST', '/v1/shipment-bookings/inline', { auth, body }), 201, 'inline booking');
      const full = await expectStatus(call(mock.url, 'GET', `/v1/shipment-bookings/${booking.id}`, { auth }), 200, 'booking');
      booked.push({ account, trackerId: full.trackerIds[0] });
    }
    // Eleven hours later PICKED_UP (+4 h) and IN_TRANSIT (+10 h) are due; a0..a2 are not in memory.
    const stepsOf = async (trackerId: string) =>
      (await expectStatus(call(mock.url, 'GET', `/__admin/events?mentions=${trackerId}&limit=500`, { admin: true }), 200, 'events')).items.filter(
        (event: { topic: string; type: string }) => event.topic === 'TRACKER' && event.type === 'UPDATED',
      ).length;
    await expectStatus(call(mock.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'PT11H' } }), 200, 'advance clock');
    // The timers published the scans without any read of the trackers (a read would catch up too).
    const published = await Promise.all(booked.map(({ trackerId }) => stepsOf(trackerId)));
    expect(published).toEqual([2, 2, 2, 2, 2]);
    // Account tokens live four hours of virtual time: a new one.
    const token = await expectStatus(call(mock.url, 'POST', `/v1/accounts/${booked[0].account.id}/tokens`, { auth: mock.basic, body: { grantType: 'client_credentials' } }), 200, 'account token');
    const tracker = await expectStatus(call(mock.url, 'GET', `/v1/trackers/${booked[0].trackerId}`, { auth: `Bearer ${token.accessToken}` }), 200, 'tracker');
    expect(tracker.events.map((event: { status: string }) => event.status)).toEqual(['CREATED', 'PICKED_UP', 'IN_TRANSIT']);
    await stop(mock);

    // After a restart the pending timers of every account are armed again, evicted or not.
    const again = await start(['--data', data, '--cache-size', '2', ...MANUAL_CLOCK]);
    await expectStatus(call(again.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'P7D' } }), 200, 'advance clock');
    // Read in the file, not over HTTP (a read would catch a tracker up by itself).
    const scansInFile = () => {
      const db = new Database(data, { readonly: true });
      try {
        return booked.map(({ account, trackerId }) => (db.prepare("SELECT json_array_length(body, '$.events') AS scans FROM items WHERE scope = ? AND collection = 'trackers' AND id = ?").get(`account:${account.id}`, trackerId) as { scans: number }).scans);
      } finally {
        db.close();
      }
    };
    await until('every tracker delivered in the file', scansInFile, (scans) => scans.every((n) => n === 5));
  });

  it('a restarted mock with more trackers than the cache holds arms them from the due index and records each due step of an account not in memory once; a file without the index is caught up once too', async () => {
    const data = dataFile();
    const mock = await start(['--data', data, '--cache-size', '2', ...MANUAL_CLOCK]);
    // Five accounts of two trackers each, booked three hours apart: ten trackers, two accounts in memory.
    const booked: { account: Account; trackerIds: string[] }[] = [];
    for (let a = 0; a < 5; a++) booked.push({ account: await newAccount(mock), trackerIds: [] });
    for (const round of [0, 1]) {
      for (const [a, entry] of booked.entries()) {
        const { auth } = entry.account;
        const carrierDefinition = await expectStatus(call(mock.url, 'POST', '/v1/carrier-definitions', { auth, body: { carrierId: catalogueIds.carrier('DHL_PARCEL'), name: `DHL ${round}` } }), 201, 'carrier definition');
        const serviceDefinition = await expectStatus(call(mock.url, 'POST', '/v1/service-definitions', { auth, body: { carrierDefinitionId: carrierDefinition.id, serviceId: catalogueIds.service('DHL_PARCEL', 'DHL_PAKET'), name: 'DHL Paket' } }), 201, 'service definition');
        const channel = await expectStatus(call(mock.url, 'POST', '/v1/shipment-channels', { auth, body: { name: 'ZPL', documentRendering: { labelFormat: 'ZPL', labelSize: 'LABEL_4X6' } } }), 201, 'channel');
        const body = { serviceDefinitionId: serviceDefinition.id, shipmentChannelId: channel.id, sender: berlin, receiver: munich, parcels: [{ weight: 2.5 }], reference: `R-${a}-${round}` };
        const booking = await expectStatus(call(mock.url, 'POST', '/v1/shipment-bookings/inline', { auth, body }), 201, 'inline booking');
        entry.trackerIds.push((await expectStatus(call(mock.url, 'GET', `/v1/shipment-bookings/${booking.id}`, { auth }), 200, 'booking')).trackerIds[0]);
      }
      if (round === 0) await expectStatus(call(mock.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'PT3H' } }), 200, 'advance clock');
    }
    await stop(mock);
    const trackerIds = booked.flatMap((entry) => entry.trackerIds);
    const inFile = <T>(read: (db: Database.Database) => T, file = data): T => {
      const db = new Database(file, { readonly: true });
      try {
        return read(db);
      } finally {
        db.close();
      }
    };
    // Read in the file, not over HTTP (a read would catch a tracker up by itself): scans per tracker.
    const scansInFile = () =>
      inFile((db) => booked.flatMap(({ account, trackerIds: ids }) => ids.map((id) => (db.prepare("SELECT json_array_length(body, '$.events') AS scans FROM items WHERE scope = ? AND collection = 'trackers' AND id = ?").get(`account:${account.id}`, id) as { scans: number }).scans)));
    // Each account's due value is its first tracker's PICKED_UP, four hours after its booking.
    const dueInFile = inFile((db) => db.prepare("SELECT scope, value FROM scope_values WHERE key = 'tracker-due'").all() as { scope: string; value: string }[]);
    expect(new Map(dueInFile.map((row) => [row.scope, JSON.parse(row.value).tracker]))).toEqual(new Map(booked.map(({ account, trackerIds: ids }) => [`account:${account.id}`, ids[0]])));
    expect(scansInFile()).toEqual(trackerIds.map(() => 1));
    const copy = `${data}.older.db`;
    copyFileSync(data, copy);

    /** Restarts on `file`, checks one timer per account, moves the clock over every scan, and counts each tracker's published scans. */
    const restartAndDeliver = async (file: string) => {
      const again = await start(['--data', file, '--cache-size', '2', ...MANUAL_CLOCK]);
      const due = await expectStatus(call(again.url, 'GET', '/__admin/clock/due?limit=50', { admin: true }), 200, 'due');
      const trackerSteps = due.items.filter((item: { kind: string }) => item.kind === 'tracker-step');
      expect(new Map(trackerSteps.map((item: { accountId: string; subject: string }) => [item.accountId, item.subject]))).toEqual(new Map(booked.map(({ account, trackerIds: ids }) => [account.id, ids[0]])));
      // A day at a time: each account's timer fires, catches its two trackers up and arms the next.
      for (let day = 0; day < 8; day++) await expectStatus(call(again.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'P1D' } }), 200, 'advance clock');
      const published = await Promise.all(
        trackerIds.map(async (id) =>
          (await expectStatus(call(again.url, 'GET', `/__admin/events?mentions=${id}&limit=500`, { admin: true }), 200, 'events')).items
            .filter((event: { topic: string; type: string }) => event.topic === 'TRACKER' && event.type === 'UPDATED')
            .map((event: { payload: { events: { status: string; occurredAt: string }[] } }) => event.payload.events.at(-1)!)
            .sort((a: { occurredAt: string }, b: { occurredAt: string }) => Date.parse(a.occurredAt) - Date.parse(b.occurredAt))
            .map((step: { status: string }) => step.status),
        ),
      );
      await stop(again);
      return published;
    };
    // Every scan after CREATED, once each, published by the timers alone (no read over HTTP).
    const journey = ['PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED'];
    const published = await restartAndDeliver(data);
    expect(published).toEqual(trackerIds.map(() => journey));
    expect(scansInFile()).toEqual(trackerIds.map(() => 5));
    expect(inFile((db) => db.prepare("SELECT count(*) FROM scope_values WHERE key = 'tracker-due'").pluck().get())).toBe(0);

    // A file of an older build has no due values: its first start reads every account once and indexes them.
    const older = new Database(copy);
    older.prepare("DELETE FROM scope_values WHERE key IN ('tracker-due', 'tracker-due-indexed')").run();
    older.close();
    expect(await restartAndDeliver(copy)).toEqual(trackerIds.map(() => journey));
    expect(inFile((db) => db.prepare("SELECT value FROM scope_values WHERE scope = 'global' AND key = 'tracker-due-indexed'").pluck().get(), copy)).toBe('true');
  });

  it('refuses a bad --cache-size, naming the flag', async () => {
    for (const [args, message] of [
      [['--data', dataFile(), '--cache-size', '0'], /--cache-size must be an integer from 1/],
      [['--data', dataFile(), '--cache-size', '2.5'], /--cache-size must be an integer from 1/],
      [['--data', dataFile(), '--cache-size', 'many'], /--cache-size needs a number/],
      [['--cache-size', '10'], /--cache-size needs --data FILE/],
    ] as const) {
      const { code, output } = await runToExit([...args]);
      expect(code, output).toBe(2);
      expect(output).toMatch(message);
    }
  });
});
