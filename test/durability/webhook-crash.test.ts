import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, expectStatus, startChild, until, type ChildMock } from './child-mock.js';

/**
 * Issue 13: webhook deliveries are durable state. A channel points at a receiver that is down
 * (a closed port); its first delivery waits out a backoff, later ones queue behind it, and an
 * older delivery of another channel is a dead letter. The mock is killed with SIGKILL and
 * restarted on the same --data file with the receiver now up on the same URL: nothing is sent
 * before the virtual clock reaches the retry, then the retry fires once and the queue follows
 * in order; the dead letter is still listed and redeliverable; no delivery id is issued twice.
 */
const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const accountBody = {
  alias: 'Warehouse',
  company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
  contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
};
const MAX_ATTEMPTS = 6;

interface Received {
  deliveryId: string;
  attempt: number;
  eventId: string;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** The receiver, up only after the first kill: records every POST and answers 204. */
function startReceiver(port: number): Promise<{ server: Server; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({
        deliveryId: String(req.headers['shipmock-delivery-id']),
        attempt: Number(req.headers['shipmock-delivery-attempt']),
        eventId: String(req.headers['shipmock-event-id']),
      });
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ server, received })));
}

const deliveriesOf = async (mock: ChildMock, query: string) =>
  (await expectStatus(call(mock.url, 'GET', `/__admin/deliveries?${query}`, { admin: true }), 200, 'deliveries')).items as any[];
const advance = (mock: ChildMock, duration: string) =>
  expectStatus(call(mock.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration } }), 200, 'advance clock');

describe('webhook deliveries survive kill -9 (SQLite --data)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-webhook-crash-'));
  const data = join(dir, 'hooks.db');
  const args = ['--data', data, '--seed', '7', '--clock', 'manual', '--clock-start', '2026-03-02T08:00:00Z'];
  let mock: ChildMock | undefined;
  let receiver: Server | undefined;
  afterAll(async () => {
    await mock?.kill();
    await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  });

  it('resumes a waiting retry once, keeps the queue order and the dead letters, reissues no delivery id', async () => {
    const port = await freePort();
    const hookUrl = `http://127.0.0.1:${port}/hook`;
    mock = await startChild(args);
    const company = await expectStatus(call(mock.url, 'POST', `/v1/companies/${mock.companyId}/tokens`, { auth: mock.basic, body: { grantType: 'client_credentials' } }), 200, 'company token');
    const account = await expectStatus(call(mock.url, 'POST', '/v1/accounts', { auth: `Bearer ${company.accessToken}`, body: accountBody }), 201, 'account');
    const token = await expectStatus(call(mock.url, 'POST', `/v1/accounts/${account.id}/tokens`, { auth: mock.basic, body: { grantType: 'client_credentials' } }), 200, 'account token');
    const auth = `Bearer ${token.accessToken}`;
    const channel = (topic: string) =>
      expectStatus(call(mock!.url, 'POST', '/v1/event-channels', { auth, body: { name: `${topic} hooks`, topics: [topic], webhook: { url: hookUrl } } }), 201, 'channel');

    // A dead letter first: one PARCEL delivery fails every attempt (the clock moves past each backoff).
    const parcels = await channel('PARCEL');
    await expectStatus(call(mock.url, 'POST', '/v1/parcels', { auth, body: { weight: 2.5, reference: 'P-1' } }), 201, 'parcel');
    const [deadLetter] = await until(
      'the PARCEL delivery is a dead letter',
      async () => {
        const items = await deliveriesOf(mock!, `channel_id=${parcels.id}`);
        if (items[0]?.status === 'RETRYING') await advance(mock!, 'PT1M');
        return items;
      },
      (items) => items[0]?.status === 'FAILED',
    );
    expect(deadLetter.attemptCount).toBe(MAX_ATTEMPTS);

    // Then three ADDRESS events: the first waits out its backoff, the others queue behind it.
    const addresses = await channel('ADDRESS');
    const created: string[] = [];
    for (let i = 0; i < 3; i++) created.push((await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth, body: { ...berlin, name: `Person ${i}` } }), 201, 'address')).id);
    const before = await until(
      'the first ADDRESS delivery is retrying',
      () => deliveriesOf(mock!, `channel_id=${addresses.id}`),
      (items) => items.length === 3 && items.some((d) => d.status === 'RETRYING'),
    );
    const [third, second, first] = before; // newest first
    expect([first.status, second.status, third.status]).toEqual(['RETRYING', 'PENDING', 'PENDING']);
    expect(first.attemptCount).toBe(1);
    expect(first.attempts[0].errorCode).toBe('ECONNREFUSED');

    await mock.kill();
    const { server, received } = await startReceiver(port);
    receiver = server;
    mock = await startChild(args);

    // Restored as it was; the retry is due later on the (frozen) virtual clock, so nothing went out.
    const after = await deliveriesOf(mock, `channel_id=${addresses.id}`);
    expect(after.map((d) => [d.id, d.status, d.attemptCount, d.nextAttemptAt])).toEqual(before.map((d) => [d.id, d.status, d.attemptCount, d.nextAttemptAt]));
    expect(received).toEqual([]);
    const dead = await deliveriesOf(mock, 'status=FAILED');
    expect(dead.map((d) => [d.id, d.attemptCount])).toEqual([[deadLetter.id, MAX_ATTEMPTS]]);

    // The clock reaches the retry: it fires once, then the queue follows in order.
    await advance(mock, 'PT1M');
    await until('three ADDRESS deliveries received', async () => received.length, (n) => n >= 3);
    expect(received.map((r) => [r.deliveryId, r.attempt])).toEqual([
      [first.id, 2],
      [second.id, 1],
      [third.id, 1],
    ]);
    const delivered = await until('the log shows them DELIVERED', () => deliveriesOf(mock!, `channel_id=${addresses.id}`), (items) => items.every((d) => d.status === 'DELIVERED'));
    expect(delivered.map((d) => d.eventId).reverse()).toEqual(received.map((r) => r.eventId));

    // The dead letter is redeliverable after the restart (its attempt count continues).
    await expectStatus(call(mock.url, 'POST', `/__admin/deliveries/${deadLetter.id}/redeliver`, { admin: true }), 202, 'redeliver');
    await until('the dead letter received', async () => received.length, (n) => n >= 4);
    expect(received[3]).toMatchObject({ deliveryId: deadLetter.id, attempt: MAX_ATTEMPTS + 1 });

    // Killed again once everything was delivered: nothing is sent twice, new ids are new.
    await until('the redelivery is recorded', () => deliveriesOf(mock!, 'status=FAILED'), (items) => items.length === 0);
    await mock.kill();
    mock = await startChild(args);
    await advance(mock, 'PT10M');
    await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth, body: berlin }), 201, 'address after the second restart');
    await until('the new delivery received', async () => received.length, (n) => n >= 5);
    const log = await until('every delivery finished', () => deliveriesOf(mock!, 'limit=100'), (items) => items.every((d) => d.status === 'DELIVERED'));
    expect(log).toHaveLength(5);
    expect(received).toHaveLength(5);
    const ids = received.map((r) => r.deliveryId);
    expect(new Set(ids).size).toBe(5);
    expect([first.id, second.id, third.id, deadLetter.id]).not.toContain(received[4].deliveryId);
  }, 60_000);
});
