import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createPostgresFeed } from '../../src/store/postgres-feed.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { throwawayPostgresForFile, type ThrowawayPostgres } from '../support/postgres.js';
import { until } from './child-mock.js';

/**
 * The shared store's feed (src/store/postgres-feed.ts, the journal of every process) on a real
 * database: every process reads what the others publish, and how often it reads does not grow
 * with the number of processes publishing.
 */
let cluster: ThrowawayPostgres;
throwawayPostgresForFile([], (started) => (cluster = started));

const FETCH = 'SELECT id, body FROM shipmock_feed';

/** A feed of process `origin`, counting the fetches its connection makes. */
function countedFeed(url: string, origin: number) {
  const counted = { fetches: 0, received: [] as { from: number; n: number }[] };
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((text: unknown, ...rest: unknown[]) => {
      if (typeof text === 'string' && text.startsWith(FETCH)) counted.fetches++;
      return query(text, ...rest);
    }) as typeof client.query;
    return client;
  };
  const feed = createPostgresFeed<{ from: number; n: number }>({ connect, name: 'journal', capacity: 10_000, origin, onError: (error) => { throw error; } });
  feed.subscribe((items) => counted.received.push(...items), () => {});
  return { feed, counted };
}

describe('the PostgreSQL feed', () => {
  it('four processes publishing at once: each reads everything the others publish, in order, fetching at most ~10 times a second however many announce', async () => {
    const url = await cluster.createDatabase();
    // The feed's table, made by the store's migrations.
    (await openPostgresStore(url)).store.close();
    const processes = [1, 2, 3, 4].map((origin) => ({ origin, ...countedFeed(url, origin) }));
    try {
      await until('every feed subscribed', async () => processes.map((p) => p.counted.fetches), (fetches) => fetches.every((n) => n >= 1));
      const before = processes.map((p) => p.counted.fetches);
      const started = performance.now();
      // Each publishes an item every 20 ms for a second: 10 flushes each, 30 announcements heard by each.
      for (let n = 1; n <= 50; n++) {
        for (const { origin, feed } of processes) feed.publish({ from: origin, n });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await until('each feed received the 150 items of the other three', async () => processes.map((p) => p.counted.received.length), (counts) => counts.every((n) => n === 150));
      const seconds = (performance.now() - started) / 1000;
      for (const { origin, counted } of processes) {
        for (const other of processes.filter((p) => p.origin !== origin)) {
          expect(counted.received.filter((item) => item.from === other.origin).map((item) => item.n)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
        }
        // At most one fetch per 100 ms of announcements, one more at the end, and the once-a-second look.
        const fetches = counted.fetches - before[origin - 1];
        expect(fetches, `fetches of process ${origin} over ${seconds.toFixed(2)} s`).toBeLessThanOrEqual(Math.ceil(seconds * 10) + 1 + Math.ceil(seconds));
      }
    } finally {
      for (const { feed } of processes) feed.close();
    }
  });
});
