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
/**
 * A reader fetches on announcements at most this often: each of N processes flushing every
 * FLUSH_MS would otherwise make every other fetch 10 × (N − 1) times a second (N² in all).
 */
const FETCH_INTERVAL_MS = FLUSH_MS;
/** Every this many flushes, rows beyond the capacity are deleted. */
const TRIM_EVERY = 20;

/** What a feed's parts share: its options, its connection, its queue and its readers. */
interface FeedContext<T> {
  options: Parameters<typeof createPostgresFeed>[0];
  channel: string;
  client: pg.Client | undefined;
  connecting: Promise<pg.Client> | undefined;
  queued: { body: string; tag?: string }[];
  flushTimer: NodeJS.Timeout | undefined;
  flushes: number;
  /** A fetch put off until FETCH_INTERVAL_MS after the last (announcements meanwhile join it). */
  fetchTimer: NodeJS.Timeout | undefined;
  /** When the last fetch was asked for (performance.now()). */
  lastFetchAt: number;
  lastId: number;
  started: boolean;
  fetching: boolean;
  fetchAgain: boolean;
  closed: boolean;
  reported: boolean;
  itemListeners: Set<(items: T[]) => void>;
  clearListeners: Set<(tag?: string) => void>;
}

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
  const { name } = options;
  const feed: FeedContext<T> = {
    options,
    channel: `shipmock_feed_${name.replace(/[^a-z0-9_]/gi, '_')}`,
    client: undefined,
    connecting: undefined,
    queued: [],
    flushTimer: undefined,
    flushes: 0,
    fetchTimer: undefined,
    lastFetchAt: -Infinity,
    lastId: 0,
    started: false,
    fetching: false,
    fetchAgain: false,
    closed: false,
    reported: false,
    itemListeners: new Set(),
    clearListeners: new Set(),
  };
  const report = (error: Error) => reportOnce(feed, error);
  const { channel } = feed;

  const poll = setInterval(() => {
    if (feed.itemListeners.size) void fetchFeed(feed);
  }, POLL_MS);
  poll.unref();

  return {
    publish(item, tag) {
      feed.queued.push({ body: JSON.stringify(item), tag });
      scheduleFlush(feed);
    },
    subscribe(onItems, onClear) {
      feed.itemListeners.add(onItems);
      feed.clearListeners.add(onClear);
      void connectFeed(feed).then(() => fetchFeed(feed), report);
      return () => {
        feed.itemListeners.delete(onItems);
        feed.clearListeners.delete(onClear);
      };
    },
    clear(tag) {
      void connectFeed(feed)
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
      feed.closed = true;
      clearInterval(poll);
      if (feed.flushTimer) clearTimeout(feed.flushTimer);
      if (feed.fetchTimer) clearTimeout(feed.fetchTimer);
      void feed.client?.end().catch(() => {});
    },
  };
}

/** Reports a failure once, until the feed connects again. */
function reportOnce<T>(feed: FeedContext<T>, error: Error): void {
  if (feed.reported) return;
  feed.reported = true;
  feed.options.onError(error);
}

/** The feed's connection: LISTENing, and the readers' start set on the first connect. */
function connectFeed<T>(feed: FeedContext<T>): Promise<pg.Client> {
  const { options, channel } = feed;
  const { name, capacity } = options;
  if (feed.client) return Promise.resolve(feed.client);
  feed.connecting ??= options
    .connect()
    .then(async (connected) => {
      connected.on('error', () => {
        feed.client = undefined;
      });
      connected.on('notification', (message) => {
        // "clear:<origin>" or "clear:<origin>:<tag>"
        const clear = /^clear:(\d+)(?::(.*))?$/s.exec(message.payload ?? '');
        if (clear && Number(clear[1]) !== options.origin) for (const listener of feed.clearListeners) listener(clear[2]);
        // Its own flushes bring nothing to read.
        if (message.payload !== `items:${options.origin}`) fetchAnnounced(feed);
      });
      await connected.query(`LISTEN ${channel}`);
      if (!feed.started) {
        // Readers start from what is in the table now: the feed's newest `capacity` rows.
        const { rows } = await connected.query<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM shipmock_feed WHERE feed = $1', [name]);
        feed.lastId = Math.max(0, Number(rows[0].id) - capacity);
        feed.started = true;
      }
      feed.client = connected;
      feed.reported = false;
      return connected;
    })
    .finally(() => {
      feed.connecting = undefined;
    });
  return feed.connecting;
}

/** Fetches for an announcement: at once, or FETCH_INTERVAL_MS after the last fetch if that is later. */
function fetchAnnounced<T>(feed: FeedContext<T>): void {
  if (feed.fetchTimer || feed.closed) return;
  const wait = feed.lastFetchAt + FETCH_INTERVAL_MS - performance.now();
  if (wait <= 0) return void fetchFeed(feed);
  feed.fetchTimer = setTimeout(() => {
    feed.fetchTimer = undefined;
    void fetchFeed(feed);
  }, wait);
  feed.fetchTimer.unref();
}

/** Reads the rows after the last one read and hands them to the readers. */
async function fetchFeed<T>(feed: FeedContext<T>): Promise<void> {
  const { options } = feed;
  if (feed.fetching) {
    feed.fetchAgain = true;
    return;
  }
  feed.fetching = true;
  try {
    do {
      feed.fetchAgain = false;
      feed.lastFetchAt = performance.now();
      const db = await connectFeed(feed);
      // Not its own rows: a process has those already (and reading them back halved throughput).
      const { rows } = await db.query<{ id: string; body: string }>('SELECT id, body FROM shipmock_feed WHERE feed = $1 AND id > $2 AND origin <> $3 ORDER BY id LIMIT $4', [options.name, feed.lastId, options.origin, FETCH_ROWS]);
      if (!rows.length) break;
      feed.lastId = Number(rows[rows.length - 1].id);
      const items = rows.map((row) => JSON.parse(row.body) as T);
      for (const listener of feed.itemListeners) listener(items);
      if (rows.length === FETCH_ROWS) feed.fetchAgain = true;
    } while (feed.fetchAgain && !feed.closed);
  } catch (error) {
    feed.client = undefined;
    reportOnce(feed, error as Error);
  } finally {
    feed.fetching = false;
  }
}

/** Inserts the queued items in one statement (trimming the feed every TRIM_EVERY flushes) and NOTIFYs. */
async function flushFeed<T>(feed: FeedContext<T>): Promise<void> {
  const { options, channel } = feed;
  const { name, capacity } = options;
  feed.flushTimer = undefined;
  if (!feed.queued.length || feed.closed) return;
  const batch = feed.queued;
  feed.queued = [];
  try {
    const db = await connectFeed(feed);
    const values = batch.map((item) => `(${db.escapeLiteral(name)}, ${options.origin}, ${item.tag === undefined ? 'NULL' : db.escapeLiteral(storable(item.tag))}, ${db.escapeLiteral(item.body)})`);
    const trim = ++feed.flushes % TRIM_EVERY === 0 ? `; DELETE FROM shipmock_feed WHERE feed = ${db.escapeLiteral(name)} AND id <= (SELECT max(id) FROM shipmock_feed WHERE feed = ${db.escapeLiteral(name)}) - ${capacity}` : '';
    await db.query(`INSERT INTO shipmock_feed (feed, origin, tag, body) VALUES ${values.join(', ')}${trim}; NOTIFY ${channel}, ${db.escapeLiteral(`items:${options.origin}`)}`);
  } catch (error) {
    // Kept for the next flush (the database may be back by then).
    feed.queued = batch.concat(feed.queued).slice(-capacity);
    feed.client = undefined;
    reportOnce(feed, error as Error);
    scheduleFlush(feed, POLL_MS);
  }
}

/** Flushes the queue after `delay`, unless a flush is already due. */
function scheduleFlush<T>(feed: FeedContext<T>, delay = FLUSH_MS): void {
  if (feed.flushTimer || feed.closed) return;
  feed.flushTimer = setTimeout(() => void flushFeed(feed), delay);
  feed.flushTimer.unref();
}
