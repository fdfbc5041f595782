import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

/**
 * Synchronous reads of a PostgreSQL database, for the misses of a shared store's bounded working
 * set (shared-scopes.ts): the store's interface is synchronous (`store.account(id)` returns the
 * scope), and a unit that uses an account its batch did not load ahead must get it now. The
 * query runs on a connection of its own in a worker thread; this thread waits for the answer
 * (Atomics.wait on a shared flag, the answer taken with receiveMessageOnPort), as the SQLite
 * store waits for its file. The worker starts on the first read, and a read that gets no answer
 * within `timeoutMs` throws (the unit fails: a request gets 503 store-unavailable).
 *
 * Only plain SELECTs go through here: they take no lock PostgreSQL's other sessions hold (MVCC),
 * so this thread never waits for its own batch's transaction.
 *
 * @example const reader = createSyncReader(url, 'shipmock:3'); reader.query('SELECT 1 AS one'); // [{ one: 1 }]
 */
export interface SyncReader {
  /** The rows of one statement (one snapshot); throws the database's error, or a timeout. */
  query<Row extends object>(sql: string, params?: unknown[]): Row[];
  /**
   * Starts the thread and its connection, and settles when it is connected (or could not be:
   * a read then reports why). Awaited before the first read: a read blocks this thread, and a
   * thread blocked while another thread starts and connects (seconds on a loaded machine) lets
   * this thread's own connection attempts time out — their timers fire before their sockets
   * are seen.
   */
  ready(): Promise<void>;
  close(): void;
}

/** The worker: one pg client, one query at a time, each answer followed by a bump of the flag. */
const WORKER = `
const { workerData } = require('node:worker_threads');
const Client = require(workerData.pg);
const { port, flag, url, name } = workerData;
const signal = new Int32Array(flag);
let client;
/** signal[1]: 0 connecting, 1 connected, 2 not (the first read tries again). */
const connectedOrNot = (state) => { Atomics.store(signal, 1, state); Atomics.notify(signal, 1); };
function database() {
  if (!client) {
    const next = new Client({ connectionString: url, application_name: name, connectionTimeoutMillis: 5000 });
    const connected = next.connect().then(() => next);
    next.on('error', () => { if (client === connected) client = undefined; });
    connected.catch(() => { if (client === connected) client = undefined; });
    client = connected;
  }
  return client;
}
database().then(() => connectedOrNot(1), () => connectedOrNot(2));
port.on('message', async ({ id, sql, params }) => {
  let answer;
  try {
    const db = await database();
    answer = { id, rows: (await db.query(sql, params)).rows };
  } catch (error) {
    answer = { id, error: String((error && error.message) || error) };
  }
  port.postMessage(answer);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
});
`;

declare global {
  /** Atomics.waitAsync: in Node ≥ 16, in TypeScript's ES2024 lib (past this build's `lib`). */
  interface Atomics {
    waitAsync(array: Int32Array, index: number, value: number, timeout?: number): { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
  }
}

export function createSyncReader(url: string, applicationName: string, timeoutMs = 10_000): SyncReader {
  let worker: { thread: Worker; port: MessagePort; signal: Int32Array } | undefined;
  let nextId = 0;

  function started() {
    if (worker) return worker;
    const channel = new MessageChannel();
    const flag = new SharedArrayBuffer(8);
    // pg's client alone (not its pool): the thread starts in ~2/3 of the time.
    const pgPath = createRequire(import.meta.url).resolve('pg/lib/client');
    const thread = new Worker(WORKER, { eval: true, workerData: { port: channel.port2, flag, url, name: applicationName, pg: pgPath }, transferList: [channel.port2] });
    // Never what keeps the process alive; an error of the thread fails the reads that wait for it.
    thread.unref();
    thread.on('error', () => {
      if (worker?.thread === thread) worker = undefined;
    });
    worker = { thread, port: channel.port1, signal: new Int32Array(flag) };
    return worker;
  }

  return {
    async ready() {
      const { signal } = started();
      const waited = Atomics.waitAsync(signal, 1, 0, timeoutMs);
      if (waited.async) await waited.value;
    },
    query<Row extends object>(sql: string, params: unknown[] = []): Row[] {
      const { port, signal } = started();
      const id = ++nextId;
      port.postMessage({ id, sql, params });
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const seen = Atomics.load(signal, 0);
        // Answers of reads that timed out earlier come first: skipped.
        for (let received = receiveMessageOnPort(port); received; received = receiveMessageOnPort(port)) {
          const answer = received.message as { id: number; rows?: Row[]; error?: string };
          if (answer.id !== id) continue;
          if (answer.error !== undefined) throw new Error(answer.error);
          return answer.rows!;
        }
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`the shared database did not answer a read within ${timeoutMs} ms`);
        Atomics.wait(signal, 0, seen, left);
      }
    },
    close() {
      const stopping = worker;
      worker = undefined;
      if (stopping) void stopping.thread.terminate();
    },
  };
}
