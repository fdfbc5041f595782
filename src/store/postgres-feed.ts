import type pg from 'pg';
import type { SharedFeed } from './store.js';

/**
 * PostgreSQL's text cannot hold U+0000: such a string would break the protocol message (the
 * server logs an error, the connection is lost). The contract gate refuses it at the edge; a
 * write that still carries one fails here, plainly, and its request is answered 503.
 */
export function storable(value: string): string {
  if (value.includes('\u0000')) throw new Error('a string with U+0000 (NUL) cannot be stored in PostgreSQL');
  return value;
}

/** How long a published item waits for others to go in one INSERT. */
const FLUSH_MS = 100;
/** Rows read per fetch; a reader far behind fetches again at once. */
const FETCH_ROWS = 1000;
/** Readers also look without a notification this often (one missed while reconnecting). */
const POLL_MS = 1000;
/** Every this many flushes, rows beyond the capacity are deleted. */
const TRIM_EVERY = 20;

/**
 * A feed of the shared store in table `shipmock_feed` (migration 2 of postgres-store.ts): items
 * are inserted in batches and announced with NOTIFY; each process LISTENs on its own connection
 * and reads the rows after the last it has, so every process sees every item in the table's
 * order. The newest `capacity` rows of a feed are kept. Failures (the database away) drop
 * nothing silently: items stay queued until a flush succeeds, and are reported once.
 *
 * @example const feed = createPostgresFeed<Entry>({ connect, name: 'journal', capacity: 1000, onError });
 */
export function createPostgresFeed<T>(options: {
  connect: () => Promise<pg.Client>;
  name: string;
  capacity: number;
  /** This process's number: its own clears are not heard back (it cleared already). */
  origin: number;
  onError: (error: Error) => void;
}): SharedFeed<T> & { close(): void } {
  const { name, capacity } = options;
  const channel = `shipmock_feed_${name.replace(/[^a-z0-9_]/gi, '_')}`;
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let queued: { body: string; tag?: string }[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  let flushes = 0;
  let lastId = 0;
  let started = false;
  let fetching = false;
  let fetchAgain = false;
  let closed = false;
  let reported = false;
  const itemListeners = new Set<(items: T[]) => void>();
  const clearListeners = new Set<(tag?: string) => void>();

  const report = (error: Error) => {
    if (reported) return;
    reported = true;
    options.onError(error);
  };

  function database(): Promise<pg.Client> {
    if (client) return Promise.resolve(client);
    connecting ??= options
      .connect()
      .then(async (connected) => {
        connected.on('error', () => {
          client = undefined;
        });
        connected.on('notification', (message) => {
          // "clear:<origin>" or "clear:<origin>:<tag>"
          const clear = /^clear:(\d+)(?::(.*))?$/s.exec(message.payload ?? '');
          if (clear && Number(clear[1]) !== options.origin) for (const listener of clearListeners) listener(clear[2]);
          // Its own flushes bring nothing to read.
          if (message.payload !== `items:${options.origin}`) void fetch();
        });
        await connected.query(`LISTEN ${channel}`);
        if (!started) {
          // Readers start from what is in the table now: the feed's newest `capacity` rows.
          const { rows } = await connected.query<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM shipmock_feed WHERE feed = $1', [name]);
          lastId = Math.max(0, Number(rows[0].id) - capacity);
          started = true;
        }
        client = connected;
        reported = false;
        return connected;
      })
      .finally(() => {
        connecting = undefined;
      });
    return connecting;
  }

  async function fetch(): Promise<void> {
    if (fetching) {
      fetchAgain = true;
      return;
    }
    fetching = true;
    try {
      do {
        fetchAgain = false;
        const db = await database();
        // Not its own rows: a process has those already (and reading them back halved throughput).
        const { rows } = await db.query<{ id: string; body: string }>('SELECT id, body FROM shipmock_feed WHERE feed = $1 AND id > $2 AND origin <> $3 ORDER BY id LIMIT $4', [name, lastId, options.origin, FETCH_ROWS]);
        if (!rows.length) break;
        lastId = Number(rows[rows.length - 1].id);
        const items = rows.map((row) => JSON.parse(row.body) as T);
        for (const listener of itemListeners) listener(items);
        if (rows.length === FETCH_ROWS) fetchAgain = true;
      } while (fetchAgain && !closed);
    } catch (error) {
      client = undefined;
      report(error as Error);
    } finally {
      fetching = false;
    }
  }

  async function flush(): Promise<void> {
    flushTimer = undefined;
    if (!queued.length || closed) return;
    const batch = queued;
    queued = [];
    try {
      const db = await database();
      const values = batch.map((item) => `(${db.escapeLiteral(name)}, ${options.origin}, ${item.tag === undefined ? 'NULL' : db.escapeLiteral(storable(item.tag))}, ${db.escapeLiteral(item.body)})`);
      const trim = ++flushes % TRIM_EVERY === 0 ? `; DELETE FROM shipmock_feed WHERE feed = ${db.escapeLiteral(name)} AND id <= (SELECT max(id) FROM shipmock_feed WHERE feed = ${db.escapeLiteral(name)}) - ${capacity}` : '';
      await db.query(`INSERT INTO shipmock_feed (feed, origin, tag, body) VALUES ${values.join(', ')}${trim}; NOTIFY ${channel}, ${db.escapeLiteral(`items:${options.origin}`)}`);
    } catch (error) {
      // Kept for the next flush (the database may be back by then).
      queued = batch.concat(queued).slice(-capacity);
      client = undefined;
      report(error as Error);
      schedule(POLL_MS);
    }
  }

  function schedule(delay = FLUSH_MS): void {
    if (flushTimer || closed) return;
    flushTimer = setTimeout(() => void flush(), delay);
    flushTimer.unref();
  }

  const poll = setInterval(() => {
    if (itemListeners.size) void fetch();
  }, POLL_MS);
  poll.unref();

  return {
    publish(item, tag) {
      queued.push({ body: JSON.stringify(item), tag });
      schedule();
    },
    subscribe(onItems, onClear) {
      itemListeners.add(onItems);
      clearListeners.add(onClear);
      void database().then(() => fetch(), report);
      return () => {
        itemListeners.delete(onItems);
        clearListeners.delete(onClear);
      };
    },
    clear(tag) {
      void database()
        .then((db) =>
          db.query(
            tag === undefined
              ? `DELETE FROM shipmock_feed WHERE feed = ${db.escapeLiteral(name)}; NOTIFY ${channel}, ${db.escapeLiteral(`clear:${options.origin}`)}`
              : `DELETE FROM shipmock_feed WHERE feed = ${db.escapeLiteral(name)} AND tag = ${db.escapeLiteral(storable(tag))}; NOTIFY ${channel}, ${db.escapeLiteral(`clear:${options.origin}:${tag}`)}`,
          ),
        )
        .catch(report);
    },
    close() {
      closed = true;
      clearInterval(poll);
      if (flushTimer) clearTimeout(flushTimer);
      void client?.end().catch(() => {});
    },
  };
}
