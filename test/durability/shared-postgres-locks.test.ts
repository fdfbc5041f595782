import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { StoreUnavailableError, type Store } from '../../src/store/store.js';
import { holdLocks, waitingOnLocks } from './advisory-locks.js';
import { throwawayPostgresForFile, type ThrowawayPostgres } from '../support/postgres.js';
import { behaviours, startWebhookReceiver } from '../support/webhook-receiver.js';
import { bookingSetup, call, companyAuth, expectStatus, holdsFor, newAccount, startChild, until, type Answer, type ChildMock } from './child-mock.js';

/**
 * Issue 27: the account is the unit of locking of a shared PostgreSQL store. A batch of one
 * account holds the wide lock shared and that account's lock (src/store/postgres-store.ts);
 * a wide batch holds the wide lock alone. Proved here without timing: a test connection takes
 * exactly the locks a process's batch takes and holds them, and the tests watch which requests
 * complete while it does (and that the others are waiting on PostgreSQL's lock, in pg_locks).
 */
const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };

let cluster: ThrowawayPostgres;
const running: { kill(): Promise<unknown> }[] = [];
throwawayPostgresForFile(running, (started) => (cluster = started));

/** How many scans the database holds for a tracker of an account (what every process would pull). */
async function scansInDatabase(url: string, accountId: string, trackerId: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ body: string }>("SELECT body FROM shipmock_items WHERE scope = $1 AND collection = 'trackers' AND id = $2", [`account:${accountId}`, trackerId]);
    return (JSON.parse(rows[0].body) as { events: unknown[] }).events.length;
  } finally {
    await client.end();
  }
}

/**
 * Stops a process (SIGSTOP) between its batches: one stopped inside a batch would keep its locks
 * (a wide batch elsewhere would wait for it). Retried until no session is left in a transaction.
 */
async function stopOutsideTransactions(url: string, mock: ChildMock): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      mock.child.kill('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'");
      if (Number(rows[0].n) === 0) return;
      mock.child.kill('SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the process was inside a transaction at every attempt to stop it');
  } finally {
    await client.end();
  }
}

/** Which process owns a webhook delivery, as the database holds it (what every process would pull). */
async function deliveryOwner(url: string, deliveryId: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ body: string }>("SELECT body FROM shipmock_items WHERE scope = 'system' AND collection = 'webhook-deliveries' AND id = $1", [deliveryId]);
    return (JSON.parse(rows[0].body) as { owner?: number }).owner;
  } finally {
    await client.end();
  }
}

/** Each process's last heartbeat in the database (written by a batch that pulled first), by key. */
async function heartbeats(url: string): Promise<Map<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ key: string; value: string }>("SELECT key, value FROM shipmock_values WHERE key LIKE 'process:%:heartbeat'");
    return new Map(rows.map((row) => [row.key, row.value]));
  } finally {
    await client.end();
  }
}

/** A request whose outcome can be asked for while it is still in flight. */
function inFlight(answer: Promise<Answer>): { settled: () => boolean; answer: Promise<Answer> } {
  let settled = false;
  const tracked = answer.finally(() => {
    settled = true;
  });
  return { settled: () => settled, answer: tracked };
}

async function twoProcesses(args: string[] = []): Promise<{ url: string; p: ChildMock; q: ChildMock }> {
  const url = await cluster.createDatabase();
  const [p, q] = await Promise.all([0, 1].map(() => startChild(['--data', url, '--rate-limit', 'off', ...args])));
  running.push(p, q);
  return { url, p, q };
}

describe('a shared PostgreSQL store locks per account', () => {
  it('lets the batches of another account run, on either process, while one account is locked; that account\'s writes wait, its reads do not', async () => {
    const { url, p, q } = await twoProcesses();
    const a = await newAccount(p);
    const b = await newAccount(q);
    const created = await expectStatus(call(p.url, 'POST', '/v1/addresses', { auth: a.auth, body: berlin }), 201, 'address of A');

    // As if a batch of account A were in progress somewhere.
    const held = await holdLocks(url, { account: a.id });
    const waitingA = inFlight(call(q.url, 'POST', '/v1/addresses', { auth: a.auth, body: { ...berlin, name: 'A 2' } }));
    await until('the write of A waits on its account lock', () => waitingOnLocks(url), (n) => n >= 1, 20_000);
    // A read of A writes nothing (--rate-limit off counts no window): it needs no lock and answers
    // now, on P (Q's batches wait behind its batch of A: a process runs one batch at a time).
    expect((await expectStatus(call(p.url, 'GET', `/v1/addresses/${created.id}`, { auth: a.auth }), 200, 'address of A read while A is locked')).id).toBe(created.id);

    // Account B works on P (which has no request of A waiting): writes and reads.
    for (let i = 0; i < 5; i++) {
      const address = await expectStatus(call(p.url, 'POST', '/v1/addresses', { auth: b.auth, body: { ...berlin, name: `B ${i}` } }), 201, `address ${i} of B`);
      await expectStatus(call(p.url, 'GET', `/v1/addresses/${address.id}`, { auth: b.auth }), 200, `address ${i} of B read back`);
    }
    expect(waitingA.settled(), 'the request of A still waits while its account is locked').toBe(false);

    await held.release();
    const answer = await waitingA.answer;
    expect(answer.status).toBe(201);
    expect((await expectStatus(call(p.url, 'GET', `/v1/addresses/${answer.body.id}`, { auth: a.auth }), 200, 'the write of A, read back')).name).toBe('A 2');
  }, 120_000);

  it('runs a timer that a pulled clock makes due as a unit of its own: a locked account\'s tracker does not move inside a batch that does not hold it', async () => {
    const { url, p, q } = await twoProcesses(['--clock', 'manual', '--clock-start', '2026-03-02T08:00:00Z']);
    const x = await newAccount(q);
    const body = await bookingSetup([q], x.auth);
    // Booked on Q, so Q holds the tracker's timer; P never touches the tracker before the end.
    const created = await expectStatus(call(q.url, 'POST', '/v1/shipment-bookings/inline', { auth: x.auth, body: body('TRACK-1') }), 201, 'booking');
    const [trackerId] = (await expectStatus(call(q.url, 'GET', `/v1/shipment-bookings/${created.id}`, { auth: x.auth }), 200, 'booking')).trackerIds;
    const before = await scansInDatabase(url, x.id, trackerId);
    const qNumber = (await expectStatus(call(q.url, 'GET', '/__admin/journal?path=/v1/shipment-bookings/inline', { admin: true }), 200, 'journal of Q')).items[0].process;

    // Q is stopped while P moves the clock and a batch of account X is in progress somewhere (the
    // test's connection holds X's locks). Resumed, Q pulls the advance in its next batch — its
    // heartbeat's, which holds no account — and X's next scans are due there.
    await stopOutsideTransactions(url, q);
    let held: { release(): Promise<void> } | undefined;
    try {
      await expectStatus(call(p.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'P7D' } }), 200, 'advance the clock on P');
      held = await holdLocks(url, { account: x.id });
      const beats = await heartbeats(url);
      const qBeat = `process:${qNumber}:heartbeat`;
      expect(beats.has(qBeat)).toBe(true);
      q.child.kill('SIGCONT');
      // Q beats once it pulled. (A beat that lost a race with P's is retried in Q's next batch,
      // which then waits behind the due timer's: then no beat comes while X is held, and the
      // deadline stands for it.)
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && (await heartbeats(url)).get(qBeat) === beats.get(qBeat)) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await scansInDatabase(url, x.id, trackerId), 'no scan of X recorded while X is locked').toBe(before);
    } finally {
      q.child.kill('SIGCONT');
      await held?.release();
    }

    // Both processes then see every scan, each recorded (and published) once. (Tokens live four hours of virtual time.)
    const token = await expectStatus(call(p.url, 'POST', `/v1/accounts/${x.id}/tokens`, { auth: p.basic, body: { grantType: 'client_credentials' } }), 200, 'account token');
    const trackers = await Promise.all([p, q].map((mock) => expectStatus(call(mock.url, 'GET', `/v1/trackers/${trackerId}`, { auth: `Bearer ${token.accessToken}` }), 200, 'tracker')));
    expect(trackers[0].events.map((event: { status: string }) => event.status)).toEqual(['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED']);
    expect(trackers[1]).toEqual(trackers[0]);
    const published = (await Promise.all([p, q].map((mock) => expectStatus(call(mock.url, 'GET', '/__admin/events?limit=500', { admin: true }), 200, 'events'))))
      .flatMap((answer) => answer.items)
      .filter((event: { topic: string; type: string; payload?: { id?: string } }) => event.topic === 'TRACKER' && event.type === 'UPDATED' && event.payload?.id === trackerId);
    expect(published).toHaveLength(4);
  }, 120_000);

  it('keeps wide units and account units apart: each waits while the other lock is held', async () => {
    const { url, p, q } = await twoProcesses();
    const a = await newAccount(p);
    const company = await companyAuth(q);

    // A wide unit (a Company token's request) waits while a batch of A holds the wide lock shared.
    const heldA = await holdLocks(url, { account: a.id });
    const wide = inFlight(call(q.url, 'GET', '/v1/accounts', { auth: company }));
    await until('the wide unit waits', () => waitingOnLocks(url), (n) => n >= 1, 20_000);
    expect(wide.settled()).toBe(false);
    await heldA.release();
    expect((await wide.answer).status).toBe(200);

    // An account unit waits while a wide batch holds the wide lock.
    const heldWide = await holdLocks(url, 'wide');
    const accountUnit = inFlight(call(p.url, 'POST', '/v1/addresses', { auth: a.auth, body: berlin }));
    await until('the account unit waits', () => waitingOnLocks(url), (n) => n >= 1, 20_000);
    expect(accountUnit.settled()).toBe(false);
    await heldWide.release();
    const written = await accountUnit.answer;
    expect(written.status).toBe(201);
    // Read back on the other process: the commit is shared as ever.
    await expectStatus(call(q.url, 'GET', `/v1/addresses/${written.body.id}`, { auth: a.auth }), 200, 'address read on Q');
  }, 120_000);

  it('refuses the commit of an account batch whose write outside its account another process changed meanwhile, and reloads', async () => {
    const url = await cluster.createDatabase();
    const one = (await openPostgresStore(url)).store;
    const two = (await openPostgresStore(url)).store;
    running.push({ kill: async () => [one, two].forEach((store: Store) => store.close()) });
    const shared = (store: Store) => store.global.collection<{ id: string; by: string }>('test-shared');

    // One's batch of account a pulls, then waits; two's batch of account b writes the same global collection and commits.
    let proceed!: () => void;
    let started!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    const pulled = new Promise<void>((resolve) => (started = resolve));
    const first = one.transaction(
      async () => {
        started();
        await gate;
        shared(one).insert({ id: 'x', by: 'one' });
      },
      'request',
      { account: 'a' },
    );
    await pulled;
    await two.transaction(() => void shared(two).insert({ id: 'y', by: 'two' }), 'request', { account: 'b' });
    proceed();
    const refused = await first.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect((refused as StoreUnavailableError).reason).toMatch(/another process changed state this batch wrote outside its account/);

    // Nothing of one's batch was written; its copy reloads and sees two's row, and a later write lands.
    await one.transaction(() => void shared(one).insert({ id: 'z', by: 'one' }), 'request', { account: 'a' });
    await two.transaction(() => {}, 'request');
    expect(shared(two).values().map((item) => item.id).sort()).toEqual(['y', 'z']);
    // Inside its account an account batch never conflicts: a and b write their own scopes at once.
    await Promise.all([
      one.transaction(() => void one.account('a').collection<{ id: string }>('things').insert({ id: 'a1' }), 'request', { account: 'a' }),
      two.transaction(() => void two.account('b').collection<{ id: string }>('things').insert({ id: 'b1' }), 'request', { account: 'b' }),
    ]);
    await one.transaction(() => {}, 'request');
    expect(one.account('b').collection<{ id: string }>('things').has('b1')).toBe(true);
  }, 60_000);
});

describe('a shared PostgreSQL store tells a slow process from a stopped one', () => {
  it('leaves the work of a process that is silent but whose session is open with it: no takeover, its delivery sent once, by it', async () => {
    // The first attempt fails, so the delivery waits for its retry on its owner; the retry is accepted.
    const receiver = await startWebhookReceiver(behaviours.failTimes(1));
    try {
      const { url, p, q } = await twoProcesses(['--clock', 'manual', '--clock-start', '2026-03-02T08:00:00Z']);
      const account = await newAccount(p);
      await expectStatus(call(p.url, 'POST', '/v1/event-channels', { auth: account.auth, body: { name: 'hooks', topics: ['ADDRESS'], webhook: { url: receiver.url } } }), 201, 'channel');
      await expectStatus(call(p.url, 'POST', '/v1/addresses', { auth: account.auth, body: berlin }), 201, 'address');
      const [waiting] = await until('the delivery waits for its retry on P', async () => (await expectStatus(call(p.url, 'GET', '/__admin/deliveries', { admin: true }), 200, 'deliveries')).items, (items: any[]) => items[0]?.status === 'RETRYING');

      // P goes silent (stopped between its transactions, its connections open: a process that is
      // only slow looks the same) for twice the 5 s after which a stopped one's work is adopted.
      await stopOutsideTransactions(url, p);
      try {
        const owner = await deliveryOwner(url, waiting.id);
        await holdsFor('no process adopts the delivery of P', () => deliveryOwner(url, waiting.id), (now) => now === owner, 10_000);
      } finally {
        p.child.kill('SIGCONT');
      }

      // P is back: its retry falls due and P sends it; the receiver saw each attempt once.
      await expectStatus(call(q.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'PT1M' } }), 200, 'advance clock');
      const delivered = await until('P delivers it', async () => expectStatus(call(p.url, 'GET', `/__admin/deliveries/${waiting.id}`, { admin: true }), 200, 'delivery'), (delivery: any) => delivery.status === 'DELIVERED', 15_000);
      expect(delivered.attempts.map((attempt: any) => [attempt.attempt, attempt.statusCode ?? attempt.errorCode])).toEqual([
        [1, 500],
        [2, 200],
      ]);
      expect(receiver.received.map((r) => [r.headers['shipmock-delivery-id'], r.attempt, r.status])).toEqual([
        [waiting.id, 1, 500],
        [waiting.id, 2, 200],
      ]);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
