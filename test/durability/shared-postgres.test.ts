import { execFileSync } from 'node:child_process';
import { createServer, request } from 'node:http';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { throwawayPostgresForFile, type ThrowawayPostgres } from '../support/postgres.js';
import { bookingSetup, call, companyAuth, expectStatus, newAccount, runToExit, startChild, until, type ChildMock } from './child-mock.js';
import { CRASH_SEED, crashRun, KILLS } from './crash-run.js';

/**
 * Issue 17: several shipmock processes on one PostgreSQL database (--data postgres://…) behave
 * as one mock. Each test starts three real `shipmock serve` processes on a fresh database of a
 * throwaway cluster (test/support/postgres.ts); if PostgreSQL cannot start, the tests fail and
 * say why.
 */
const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };

let cluster: ThrowawayPostgres;
const running: ChildMock[] = [];
throwawayPostgresForFile(running, (started) => (cluster = started));

/** Three processes on a new database. */
async function threeProcesses(args: string[] = []): Promise<{ url: string; mocks: [ChildMock, ChildMock, ChildMock] }> {
  const url = await cluster.createDatabase();
  // Started together: the schema migration runs once whichever process takes the lock first.
  const mocks = (await Promise.all([0, 1, 2].map(() => startChild(['--data', url, ...args])))) as [ChildMock, ChildMock, ChildMock];
  running.push(...mocks);
  return { url, mocks };
}

/** Runs `count` calls with at most `concurrency` in flight. */
async function inParallel<T>(count: number, concurrency: number, work: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await work(index);
      }
    }),
  );
  return results;
}

describe('three processes on one PostgreSQL behave as one mock', () => {
  it('share accounts, tokens and resources; 3,000 concurrent bookings over the three get 3,000 distinct ids and tracking numbers', async () => {
    const { mocks } = await threeProcesses(['--rate-limit', 'off']);
    const [a, b, c] = mocks;
    const account = await newAccount(a);
    // Read on the others with the token A issued (one signing secret, kept in the database).
    for (const other of [b, c]) {
      const read = await call(other.url, 'GET', `/v1/accounts/${account.id}`, { auth: await companyAuth(other) });
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(account.id);
      expect((await call(other.url, 'GET', '/v1/addresses', { auth: account.auth })).status).toBe(200);
    }
    // Read-your-writes across processes: each write is read back at once on another process.
    for (let i = 0; i < 20; i++) {
      const writer = mocks[i % 3];
      const reader = mocks[(i + 1) % 3];
      const created = await expectStatus(call(writer.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `Person ${i}` } }), 201, 'POST /v1/addresses');
      const read = await call(reader.url, 'GET', `/v1/addresses/${created.id}`, { auth: account.auth });
      expect(read.status, `address ${i} written on one process, read on the next`).toBe(200);
    }

    const body = await bookingSetup(mocks, account.auth);
    const started = Date.now();
    const bookings = await inParallel(3000, 60, async (i) => {
      const mock = mocks[i % 3];
      return expectStatus(call(mock.url, 'POST', '/v1/shipment-bookings/inline', { auth: account.auth, body: body(`ORDER-${i}`) }), 201, `booking ${i}`);
    });
    const seconds = (Date.now() - started) / 1000;
    console.log(`3,000 inline bookings over three processes: ${seconds.toFixed(1)} s, ${Math.round(3000 / seconds)} bookings/s`);
    const ids = new Set(bookings.map((booking) => booking.id as string));
    expect(ids.size).toBe(3000);

    // Every process lists all of them, in one order, with distinct tracking numbers and parcels.
    const listed: { id: string; trackingNumbers: string[]; parcels: { parcelId: string }[] }[][] = [];
    for (const mock of mocks) {
      const seen: { id: string; trackingNumbers: string[]; parcels: { parcelId: string }[] }[] = [];
      let cursor: string | undefined;
      do {
        const page = await expectStatus(call(mock.url, 'GET', `/v1/shipment-bookings?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { auth: account.auth }), 200, 'list bookings');
        seen.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      listed.push(seen);
    }
    expect(listed[0]).toHaveLength(3000);
    expect(new Set(listed[0].map((booking) => booking.id))).toEqual(ids);
    expect(new Set(listed[0].flatMap((booking) => booking.trackingNumbers)).size).toBe(3000);
    expect(new Set(listed[0].flatMap((booking) => booking.parcels.map((parcel) => parcel.parcelId))).size).toBe(3000);
    expect(listed[1]).toEqual(listed[0]);
    expect(listed[2]).toEqual(listed[0]);
  }, 180_000);

  it('counts a rate limit across the three: N per window in total, whichever process is asked', async () => {
    const { mocks } = await threeProcesses(['--rate-limit', '30/60s', '--clock', 'manual']);
    const account = await newAccount(mocks[0]);
    // newAccount used the company's and the client's windows, not the account's.
    const answers = await inParallel(60, 12, (i) => call(mocks[i % 3].url, 'GET', '/v1/addresses', { auth: account.auth }));
    const ok = answers.filter((answer) => answer.status === 200).length;
    const limited = answers.filter((answer) => answer.status === 429).length;
    expect(ok).toBe(30);
    expect(limited).toBe(30);
    // The window is one window: after it, every process lets the account through again.
    await expectStatus(call(mocks[1].url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'PT61S' } }), 200, 'advance clock');
    for (const mock of mocks) expect((await call(mock.url, 'GET', '/v1/addresses', { auth: account.auth })).status).toBe(200);
  }, 60_000);

  it('runs one clock: an advance on A is seen on B, and a tracker step that falls due is recorded once', async () => {
    const { mocks } = await threeProcesses(['--clock', 'manual', '--clock-start', '2026-03-02T08:00:00Z']);
    const [a, b, c] = mocks;
    const account = await newAccount(c);
    const body = await bookingSetup(mocks, account.auth);
    const created = await expectStatus(call(c.url, 'POST', '/v1/shipment-bookings/inline', { auth: account.auth, body: body('TRACK-1') }), 201, 'booking');
    const booking = await expectStatus(call(a.url, 'GET', `/v1/shipment-bookings/${created.id}`, { auth: account.auth }), 200, 'booking on A');
    const [trackerId] = booking.trackerIds;

    const moved = await expectStatus(call(a.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'P7D' } }), 200, 'advance clock');
    const onB = await expectStatus(call(b.url, 'GET', '/__admin/clock', { admin: true }), 200, 'clock on B');
    expect(onB.epochMs).toBe(moved.epochMs);

    // Tokens live four hours of virtual time: a new one, from the process that did not move the clock.
    const token = await expectStatus(call(b.url, 'POST', `/v1/accounts/${account.id}/tokens`, { auth: b.basic, body: { grantType: 'client_credentials' } }), 200, 'account token');
    const auth = `Bearer ${token.accessToken}`;
    const trackers = await Promise.all(mocks.map((mock) => expectStatus(call(mock.url, 'GET', `/v1/trackers/${trackerId}`, { auth }), 200, 'tracker')));
    const statuses = trackers[0].events.map((event: { status: string }) => event.status);
    expect(statuses).toEqual(['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED']);
    for (const tracker of trackers) expect(tracker).toEqual(trackers[0]);
    // Each scan was published once, by whichever process recorded it.
    const published = (await Promise.all(mocks.map((mock) => expectStatus(call(mock.url, 'GET', '/__admin/events?limit=500', { admin: true }), 200, 'events'))))
      .flatMap((answer) => answer.items)
      .filter((event: { topic: string; type: string; payload?: { id?: string } }) => event.topic === 'TRACKER' && event.type === 'UPDATED' && event.payload?.id === trackerId);
    expect(published).toHaveLength(4);
  }, 60_000);

  it('shares scenarios and their counters: a scenario activated on B answers on C, and its sequence counts across the three', async () => {
    const { mocks } = await threeProcesses();
    const [a, b, c] = mocks;
    const account = await newAccount(a);
    await expectStatus(call(b.url, 'POST', '/__admin/scenarios', { admin: true, body: { name: 'fail-twice-then-succeed', accountId: account.id, params: { path: '/v1/addresses' } } }), 201, 'activate scenario');
    expect((await call(c.url, 'GET', '/v1/addresses', { auth: account.auth })).status).toBe(503);
    expect((await call(a.url, 'GET', '/v1/addresses', { auth: account.auth })).status).toBe(503);
    expect((await call(c.url, 'GET', '/v1/addresses', { auth: account.auth })).status).toBe(200);
    const listed = await expectStatus(call(a.url, 'GET', '/__admin/scenarios', { admin: true }), 200, 'scenarios');
    expect(listed.active[0]).toMatchObject({ name: 'fail-twice-then-succeed', hits: 3 });
  }, 60_000);

  it('keeps one journal of every process: each shows the traffic of all three, naming the process that served it, live too', async () => {
    const { mocks } = await threeProcesses();
    const account = await newAccount(mocks[0]);
    // B's live view (server-sent events) is open before the traffic.
    const controller = new AbortController();
    const stream = await fetch(`${mocks[1].url}/__admin/journal/stream`, { headers: { 'X-Shipmock-Admin': '1', Accept: 'text/event-stream' }, signal: controller.signal });
    expect(stream.status).toBe(200);
    let streamed = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of stream.body!) streamed += decoder.decode(chunk as Uint8Array, { stream: true });
      } catch {
        // aborted
      }
    })();
    for (const [i, mock] of mocks.entries()) expect((await call(mock.url, 'GET', `/v1/addresses?limit=${i + 1}`, { auth: account.auth })).status).toBe(200);
    for (const mock of mocks) {
      const entries = await until(
        'the journal shows the three requests',
        async () => (await expectStatus(call(mock.url, 'GET', '/__admin/journal?path=/v1/addresses', { admin: true }), 200, 'journal')).items as any[],
        (items) => items.length === 3,
      );
      expect(entries.map((e) => e.query).sort()).toEqual(['limit=1', 'limit=2', 'limit=3']);
      expect(new Set(entries.map((e) => e.process)).size).toBe(3);
    }
    await until('B streams the request C served', async () => streamed, (text) => text.includes('limit=3'));
    controller.abort();
    await reading;
    // Clearing on one clears them all.
    await expectStatus(call(mocks[2].url, 'DELETE', '/__admin/journal', { admin: true }), 204, 'clear journal');
    for (const mock of mocks) {
      await until('the journal is empty everywhere', async () => (await expectStatus(call(mock.url, 'GET', '/__admin/journal?path=/v1/addresses', { admin: true }), 200, 'journal')).items as any[], (items) => items.length === 0);
    }
  }, 60_000);

  it('delivers a webhook exactly once while the process that owned it is killed: another adopts it and records every attempt', async () => {
    const received: { deliveryId: string; attempt: number; status: number }[] = [];
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        // The first attempt fails; the retry is accepted.
        const status = received.length === 0 ? 500 : 204;
        received.push({ deliveryId: String(req.headers['shipmock-delivery-id']), attempt: Number(req.headers['shipmock-delivery-attempt']), status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
      const { mocks } = await threeProcesses(['--clock', 'manual', '--clock-start', '2026-03-02T08:00:00Z']);
      const [a, b, c] = mocks;
      const account = await newAccount(a);
      await expectStatus(call(a.url, 'POST', '/v1/event-channels', { auth: account.auth, body: { name: 'hooks', topics: ['ADDRESS'], webhook: { url: hookUrl } } }), 201, 'channel');
      await expectStatus(call(a.url, 'POST', '/v1/addresses', { auth: account.auth, body: berlin }), 201, 'address');
      const [waiting] = await until('the delivery waits for its retry on A', async () => (await expectStatus(call(a.url, 'GET', '/__admin/deliveries', { admin: true }), 200, 'deliveries')).items, (items: any[]) => items[0]?.status === 'RETRYING');
      expect(received).toHaveLength(1);

      await a.kill();
      // B or C notices that A stopped (no heartbeat for 5 s) and adopts the delivery; then the retry falls due.
      const adopter = await until(
        'another process adopts the delivery',
        async () => {
          for (const mock of [b, c]) {
            const items = (await expectStatus(call(mock.url, 'GET', `/__admin/deliveries`, { admin: true }), 200, 'deliveries')).items;
            const found = items.find((d: any) => d.id === waiting.id);
            if (found) return mock;
          }
          return undefined;
        },
        (mock) => mock !== undefined,
        15_000,
      );
      await expectStatus(call(b.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'PT1M' } }), 200, 'advance clock');
      const delivered = await until(
        'the adopted delivery is delivered',
        async () => (await expectStatus(call(adopter!.url, 'GET', `/__admin/deliveries/${waiting.id}`, { admin: true }), 200, 'delivery')),
        (delivery: any) => delivery.status === 'DELIVERED',
        15_000,
      );
      expect(received.map((r) => [r.deliveryId, r.attempt, r.status])).toEqual([
        [waiting.id, 1, 500],
        [waiting.id, 2, 204],
      ]);
      expect(delivered.attempts.map((attempt: any) => [attempt.attempt, attempt.statusCode])).toEqual([
        [1, 500],
        [2, 204],
      ]);
      // Every process lists it as it ended (the adopter commits the outcome, background work, a moment after it saw it).
      for (const mock of [b, c]) {
        await until(
          'both survivors list the delivery as delivered',
          async () => (await expectStatus(call(mock.url, 'GET', '/__admin/deliveries', { admin: true }), 200, 'deliveries')).items.map((d: any) => [d.id, d.status, d.attemptCount]),
          (rows) => JSON.stringify(rows) === JSON.stringify([[waiting.id, 'DELIVERED', 2]]),
        );
      }
      // Nothing more goes out later: a day on the shared clock makes any retry due, and once no
      // survivor has a delivery left to send, what the receiver got is all it gets.
      await expectStatus(call(b.url, 'POST', '/__admin/clock/advance', { admin: true, body: { duration: 'P1D' } }), 200, 'advance clock a day');
      for (const mock of [b, c]) {
        await until(
          'no survivor has a delivery left to send',
          async () => (await expectStatus(call(mock.url, 'GET', '/__admin/deliveries?limit=1', { admin: true }), 200, 'deliveries')).counts,
          (counts: any) => counts.PENDING + counts.IN_FLIGHT + counts.RETRYING === 0,
        );
      }
      expect(received).toHaveLength(2);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 60_000);

  it(`loses no acknowledged write when a process is killed (the crash test, ${KILLS} kill points, seed ${CRASH_SEED})`, async () => {
    const url = await cluster.createDatabase();
    await crashRun(url, (mock) => mock && running.push(mock));
  }, 120_000);
});

describe('a shared database in a bad state is a clear error, not a hang', () => {
  it('refuses to start when the database cannot be reached, naming the URL with the password masked', async () => {
    const started = Date.now();
    const { code, output } = await runToExit(['--data', 'postgres://shipmock:s3cret-pw@127.0.0.1:1/nowhere']);
    expect(code).not.toBe(0);
    expect(output).toContain('postgres://shipmock:***@127.0.0.1:1/nowhere');
    expect(output).toContain('cannot connect to PostgreSQL');
    expect(output).not.toContain('s3cret-pw');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses a database whose shipmock schema is newer than this shipmock', async () => {
    const url = await cluster.createDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("CREATE TABLE shipmock_meta (key text PRIMARY KEY, value text NOT NULL); INSERT INTO shipmock_meta VALUES ('schema_version', '99')");
    await admin.end();
    const { code, output } = await runToExit(['--data', url]);
    expect(code).not.toBe(0);
    expect(output).toMatch(/schema newer than this shipmock \(version 99; this one knows up to \d+\)/);
  });

  it('answers 503 with Retry-After while the database is gone, changes nothing, and carries on when it is back', async () => {
    const url = await cluster.createDatabase();
    const database = new URL(url).pathname.slice(1);
    const mock = await startChild(['--data', url]);
    running.push(mock);
    const account = await newAccount(mock);
    const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    try {
      // The database goes away: no new connections, and the mock's is cut.
      await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database]);
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${mock.url}/v1/addresses`, { method: 'POST', headers: { Authorization: account.auth, 'Content-Type': 'application/json' }, body: JSON.stringify(berlin) });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(await res.json()).toMatchObject({ type: 'https://shipmock.dev/problems/store-unavailable', status: 503 });
      }
      await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    } finally {
      await admin.end();
    }
    // Back: the process is still there, reconnects, and the refused writes left nothing behind.
    const list = await expectStatus(call(mock.url, 'GET', '/v1/addresses', { auth: account.auth }), 200, 'addresses after the outage');
    expect(list.items).toEqual([]);
    await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: berlin }), 201, 'address after the outage');
  }, 60_000);
});

/** The number of the process that answers a request on a connection of its own (GET /__admin/store/batches). */
function processServing(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const asked = request(`${url}/__admin/store/batches`, { agent: false, headers: { 'X-Shipmock-Admin': '1' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve((JSON.parse(body) as { process: number }).process));
    });
    asked.on('error', reject);
    asked.end();
  });
}

describe('--workers N: one host, every core, one shared store', () => {
  it('refuses --workers without a shared store, saying why', async () => {
    const memory = await runToExit(['--workers', '2']);
    expect(memory.code).not.toBe(0);
    expect(memory.output).toContain('--workers 2 needs a store the workers share: add --data FILE (SQLite, this host) or --data postgres://');
  });

  it('serves one port from N worker processes that share the database, and restarts a worker that dies', async () => {
    const url = await cluster.createDatabase();
    const mock = await startChild(['--data', url, '--workers', '2']);
    running.push(mock);
    expect(mock.output()).toContain('workers        2 processes (node:cluster) on this port, one shared store');
    const workerPids = () => execFileSync('pgrep', ['-P', String(mock.child.pid)]).toString().trim().split('\n').filter(Boolean).map(Number);
    expect(workerPids()).toHaveLength(2);
    // The banner is worker 1's, printed once it listens: wait until the other answers too (a new
    // connection each time, spread over the workers), or killing worker 1 could close the port.
    const serving = new Set<number>();
    await until('both workers answer', async () => serving.add(await processServing(mock.url)), (numbers) => numbers.size === 2, 30_000);
    const account = await newAccount(mock);
    // Whichever worker takes a connection, each write is read back.
    for (let i = 0; i < 10; i++) {
      const created = await expectStatus(call(mock.url, 'POST', '/v1/addresses', { auth: account.auth, body: { ...berlin, name: `Person ${i}` } }), 201, 'address');
      expect((await call(mock.url, 'GET', `/v1/addresses/${created.id}`, { auth: account.auth })).status).toBe(200);
    }
    const [first] = workerPids();
    process.kill(first, 'SIGKILL');
    await until('the primary starts the worker again', async () => workerPids(), (pids) => pids.length === 2 && !pids.includes(first), 15_000);
    // A keep-alive connection the killed worker held is gone (a client sees it reset): a new one is served.
    const list = await call(mock.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }).catch(() => call(mock.url, 'GET', '/v1/addresses?limit=100', { auth: account.auth }));
    expect(list.body.items).toHaveLength(10);
    expect(await mock.stop()).toBe(0);
  }, 60_000);
});
