import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';
import { call, expectStatus, newAccount, runToExit, startChild, until, type ChildMock } from './child-mock.js';

/**
 * Issue 17: `--workers N --data FILE` — the workers of one host share a SQLite file (the shared
 * layout of src/store/sqlite-shared-store.ts) and behave as one mock, like processes on
 * PostgreSQL (shared-postgres.test.ts); any process opens a file in that layout the same way.
 */
const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const dir = mkdtempSync(join(tmpdir(), 'shipmock-shared-sqlite-'));
const running: ChildMock[] = [];
afterAll(async () => {
  await Promise.all(running.map((mock) => mock.kill().catch(() => {})));
});

/** A POST whose client gives up `afterMs` into it (while the mock waits out a delay): resolves once it was aborted. */
async function abandonedPost(mock: ChildMock, path: string, auth: string, body: unknown, afterMs = 500): Promise<void> {
  const gone = new AbortController();
  const abandoned = fetch(`${mock.url}${path}`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal: gone.signal }).catch(() => 'aborted');
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  gone.abort();
  expect(await abandoned).toBe('aborted');
}

describe('--workers N on one SQLite file', () => {
  it('serves one port from two workers on one file, starts a worker that dies again, and keeps the state for the next start', async () => {
    const data = join(dir, 'workers.db');
    const mock = await startChild(['--data', data, '--workers', '2']);
    running.push(mock);
    expect(mock.output()).toContain('workers        2 processes (node:cluster) on this port, one shared store');
    const workerPids = () => execFileSync('pgrep', ['-P', String(mock.child.pid)]).toString().trim().split('\n').filter(Boolean).map(Number);
    expect(workerPids()).toHaveLength(2);
    const account = await newAccount(mock);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `Person ${i}` } }), 201, 'address');
      ids.push(created.id);
      expect((await call(mock.url, 'GET', `/v1/addresses/${created.id}`, { auth: account.auth })).status).toBe(200);
    }
    const [first] = workerPids();
    process.kill(first, 'SIGKILL');
    await until('the primary starts the worker again', workerPids, (pids) => pids.length === 2 && !pids.includes(first));
    const list = await call(mock.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }).catch(() => call(mock.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }));
    expect(list.body.items.map((a: { id: string }) => a.id)).toEqual(ids);
    expect(await mock.stop()).toBe(0);

    // One process on the file later: the same state, the same token.
    const again = await startChild(['--data', data]);
    running.push(again);
    const listed = await expectStatus(call(again.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }), 200, 'addresses after a restart');
    expect(listed.items.map((a: { id: string }) => a.id)).toEqual(ids);
    expect(await again.stop()).toBe(0);
  }, 60_000);

  it('makes processes on one shared file one mock: writes read back on the others, one rate-limit window, distinct ids', async () => {
    const data = join(dir, 'three.db');
    // --workers creates the file in the shared layout; afterwards any process opens it so.
    const creator = await startChild(['--data', data, '--workers', '2']);
    expect(await creator.stop()).toBe(0);
    const mocks = await Promise.all([0, 1, 2].map(() => startChild(['--data', data, '--rate-limit', '30/60s', '--clock', 'manual'])));
    running.push(...mocks);
    const account = await newAccount(mocks[0]);
    const ids = new Set<string>();
    for (let i = 0; i < 9; i++) {
      const created = await expectStatus(call(mocks[i % 3].url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `Person ${i}` } }), 201, 'address');
      ids.add(created.id);
      expect((await call(mocks[(i + 1) % 3].url, 'GET', `/v1/addresses/${created.id}`, { auth: account.auth })).status).toBe(200);
    }
    expect(ids.size).toBe(9);
    // 18 requests used so far of the account's 30; 30 more spread over the three: 12 pass.
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => call(mocks[i % 3].url, 'GET', '/v1/addresses', { auth: account.auth })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(12);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(18);
    // One journal: each process shows the requests all three served.
    const journal = await until(
      'the journal of one shows the traffic of all three',
      async () => (await expectStatus(call(mocks[2].url, 'GET', '/__admin/journal?path=/v1/addresses&limit=1000', { admin: true }), 200, 'journal')).items as { process: number }[],
      // 9 creates and the 30 listings (the reads by id have paths of their own).
      (items) => items.length === 39,
    );
    expect(new Set(journal.map((e) => e.process)).size).toBe(3);
    for (const mock of mocks) expect(await mock.stop()).toBe(0);
  }, 60_000);

  it('refuses a data file of a one-process mock for --workers, saying why, and leaves it as it was', async () => {
    const data = join(dir, 'single.db');
    const single = await startChild(['--data', data]);
    await newAccount(single);
    expect(await single.stop(), single.output()).toBe(0);
    const { code, output } = await runToExit(['--data', data, '--workers', '2']);
    expect(code).not.toBe(0);
    expect(output).toContain('was written by a mock of one process');
    const back = await startChild(['--data', data]);
    running.push(back);
    expect(await back.stop(), back.output()).toBe(0);
  }, 60_000);

  it('checks a request against the contract before its batch, and answers as before: 401 before 400, a 400 counted in its window, a body sent in chunks checked inside', async () => {
    const mock = await startChild(['--data', join(dir, 'precheck.db'), '--workers', '2', '--rate-limit', '50/60s']);
    running.push(mock);
    const account = await newAccount(mock);
    const invalid = { ...berlin, countryCode: 'Germany' };
    const unauthenticated = await call(mock.url, 'POST', '/v1/addresses', { body: invalid });
    expect(unauthenticated.status).toBe(401);
    const refused = await call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: invalid });
    expect(refused.status).toBe(400);
    const fieldsOf = (problem: { properties: { violations: { field: string }[] } }) => problem.properties.violations.map((v) => v.field);
    expect(fieldsOf(refused.body)).toContain('body/countryCode');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('49');
    const created = await call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: berlin });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-ratelimit-remaining')).toBe('48');
    // No Content-Length: the body is read inside the unit, and checked there.
    const chunked = await fetch(`${mock.url}/v1/addresses`, {
      method: 'POST',
      headers: { Authorization: account.auth, 'Content-Type': 'application/json' },
      body: new Blob([JSON.stringify(invalid)]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(400);
    expect(fieldsOf(await chunked.json())).toEqual(fieldsOf(refused.body));
    expect(await mock.stop()).toBe(0);
  }, 60_000);

  it("waits out a scenario's latency outside its batch: other accounts' requests, and the account's own, are not held behind it", async () => {
    const mock = await startChild(['--data', join(dir, 'latency.db'), '--workers', '2']);
    running.push(mock);
    const [slow, other] = [await newAccount(mock), await newAccount(mock)];
    const activated = await call(mock.url, 'POST', '/__admin/scenarios', { admin: true, body: { name: 'slow-responses', accountId: slow.id, params: { mean: 3000, stddev: 0 } } });
    expect(activated.status).toBe(201);
    const timed = async (auth: string, path = '/v1/addresses') => {
      const started = performance.now();
      const answer = await call(mock.url, 'GET', path, { auth });
      return { status: answer.status, ms: performance.now() - started };
    };
    const delayed = [timed(slow.auth), timed(slow.auth)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Eight requests spread over both workers: some share a worker with a delayed one.
    const others = await Promise.all(Array.from({ length: 8 }, () => timed(other.auth)));
    expect(others.every((answer) => answer.status === 200)).toBe(true);
    expect(Math.max(...others.map((answer) => answer.ms))).toBeLessThan(1500);
    const slowOnes = await Promise.all(delayed);
    expect(slowOnes.map((answer) => answer.status)).toEqual([200, 200]);
    // Both waited their 3 s side by side, not one after the other.
    for (const answer of slowOnes) expect(answer.ms).toBeGreaterThanOrEqual(2900);
    expect(Math.max(...slowOnes.map((answer) => answer.ms))).toBeLessThan(4500);
    // A client that leaves during the wait: its request is not handled, and nothing waits for it.
    await abandonedPost(mock, '/v1/addresses', slow.auth, { ...berlin, name: 'Never Stored' });
    expect((await timed(other.auth)).ms).toBeLessThan(1500);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const stored = await call(mock.url, 'GET', '/v1/addresses?limit=100', { auth: other.auth });
    expect(stored.status).toBe(200);
    const listed = await call(mock.url, 'GET', '/__admin/scenarios', { admin: true });
    expect(JSON.stringify(listed.body)).toContain('slow-responses');
    const mine = await timed(slow.auth, '/v1/addresses?limit=100');
    expect(mine.status).toBe(200);
    expect(await mock.stop()).toBe(0);
  }, 60_000);

  it("waits out a carrier's latency (slow-carrier) outside its batch: the sandbox's writes go on meanwhile, and the booking is made, also when its client leaves", async () => {
    const mock = await startChild(['--data', join(dir, 'carrier-latency.db'), '--workers', '2']);
    running.push(mock);
    const [slow, other] = [await newAccount(mock), await newAccount(mock)];
    const auth = slow.auth;
    const carrierDefinition = await expectStatus(call(mock.url, 'POST', '/v1/carrier-definitions', { auth, body: { carrierId: catalogueIds.carrier('DHL_PARCEL'), name: 'DHL', mode: 'PRODUCTION' } }), 201, 'carrier definition');
    const serviceDefinition = await expectStatus(call(mock.url, 'POST', '/v1/service-definitions', { auth, body: { carrierDefinitionId: carrierDefinition.id, serviceId: catalogueIds.service('DHL_PARCEL', 'DHL_PAKET'), name: 'DHL Paket' } }), 201, 'service definition');
    const channel = await expectStatus(call(mock.url, 'POST', '/v1/shipment-channels', { auth, body: { name: 'ZPL', documentRendering: { labelFormat: 'ZPL', labelSize: 'LABEL_4X6' } } }), 201, 'channel');
    const booking = (reference: string) => ({ serviceDefinitionId: serviceDefinition.id, shipmentChannelId: channel.id, sender: berlin, receiver: berlin, parcels: [{ weight: 2.5 }], reference });
    await expectStatus(call(mock.url, 'POST', '/__admin/scenarios', { admin: true, body: { name: 'slow-carrier', accountId: slow.id, params: { carrier: 'DHL_PARCEL', delay: 3000 } } }), 201, 'slow-carrier');

    const started = performance.now();
    const slowBooking = call(mock.url, 'POST', '/v1/shipment-bookings/inline', { auth, body: booking('SLOW-1') });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Writes of another account on both workers (every unit is wide while a scenario has rules):
    // they used to wait the carrier's 3 s out behind the booking's batch.
    const writes = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const at = performance.now();
        const answer = await call(mock.url, 'POST', '/v1/addresses', { auth: other.auth, body: { ...berlin, name: `Person ${i}` } });
        return { status: answer.status, ms: performance.now() - at };
      }),
    );
    expect(writes.map((write) => write.status)).toEqual(Array(8).fill(201));
    expect(Math.max(...writes.map((write) => write.ms))).toBeLessThan(1500);
    const booked = await slowBooking;
    expect(booked.status).toBe(201);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2900);
    expect((await expectStatus(call(mock.url, 'GET', `/v1/shipment-bookings/${booked.body.id}`, { auth }), 200, 'booking')).status).toBe('BOOKED');

    // A client that gives up during the carrier's delay: the booking is made all the same (as the
    // real service would: the carrier was called), and nothing waits for it.
    await abandonedPost(mock, '/v1/shipment-bookings/inline', auth, booking('GAVE-UP'));
    const meanwhile = performance.now();
    await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: other.auth, body: berlin }), 201, 'address meanwhile');
    expect(performance.now() - meanwhile).toBeLessThan(1500);
    const listed = await until('the abandoned booking stored', () => call(mock.url, 'GET', '/v1/shipment-bookings?reference=GAVE-UP', { auth }), (answer) => answer.status === 200 && answer.body.items.length === 1);
    expect(listed.body.items[0].status).toBe('BOOKED');
    expect(await mock.stop()).toBe(0);
  }, 60_000);
});
