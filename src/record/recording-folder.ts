import { createWriteStream, existsSync, openSync, readFileSync, unlinkSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { exchangeToHarEntry, harToExchanges, HAR_CREATOR, type Exchange } from '../recording/index.js';
import { exchangeKey } from './exchange-key.js';
import { lockRecordingFolder } from './folder-lock.js';
import { HAR_FILE, readFolderExchanges, writeRecording } from './recording-files.js';

/**
 * A recording folder open for writing: what it held when opened, and what this run adds.
 *
 * Recording again into a folder adds what is new instead of overwriting it (capture on miss). An
 * exchange's identity is its matching key (src/record/exchange-key.ts: the key a recorded rule
 * answers) and its position among the exchanges of that key in one run: the third identical
 * request of a run is the same exchange as the third of the run that recorded the folder, and
 * new only if that run had fewer. So a client that runs the same flow twice records nothing the
 * second time, and a flow that goes one request further records just that one.
 *
 * While a run records, each new exchange is appended, secrets shortened, as one HAR entry per
 * line to `recording.har.part` (in batches every 50 ms, off the request's path); `close` writes the
 * HAR file and the scenario whole and removes the part. A run that was killed leaves the part
 * behind, and the next one to open the folder takes its exchanges in: nothing recorded is lost.
 */
export interface RecordingFolder {
  readonly dir: string;
  /** Every exchange in the folder, those found at open first, in recording order. */
  exchanges(): readonly Exchange[];
  /** Keeps the exchange unless the folder has it already; true when it was new. */
  add(exchange: Exchange): boolean;
  /**
   * As add, for an exchange built only when it is kept: `key` is its exchangeKey. A recorder
   * converts just the request to know the key; an answer the folder has already, or one past a
   * request's bound, is never converted.
   */
  addKeyed(key: string, build: () => Exchange): boolean;
  /** Keeps the exchange whatever the folder has (a replay's miss: a position not recorded yet). */
  append(exchange: Exchange): void;
  /** Exchanges found at open (a killed run's included), kept by this run, left out as already recorded, and past a request's bound of answers. */
  counts(): { found: number; added: number; known: number; dropped: number };
  /** Writes the folder's HAR file and scenario if anything was added since they were last written (atomically). */
  flush(): void;
  /** Flushes and releases the folder for the next recorder. */
  close(): void;
}

/** Answers kept for one request (a recorded rule's sequence is bounded: RECORDED_BOUNDS.maxSteps). */
export const MAX_ANSWERS_PER_REQUEST = 10_000;

/** How long new exchanges wait to be appended together (a kill loses at most these). */
const JOURNAL_DELAY_MS = 50;

/** The append-only file of a run's exchanges, one HAR entry per line, until the run closes. */
export const PART_FILE = `${HAR_FILE}.part`;

export interface OpenFolderOptions {
  /** Told when the part file cannot be written (a full disk): the exchanges stay in memory, written at close. */
  onWriteError?: (error: Error) => void;
}

/** The exchanges a killed run appended to the part file; a line cut by the kill is left out. */
function readPart(path: string): Exchange[] {
  if (!existsSync(path)) return [];
  const entries: unknown[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      // The last line, cut mid-write.
    }
  }
  return entries.length ? harToExchanges({ log: { version: '1.2', creator: HAR_CREATOR, entries } }).exchanges : [];
}

/**
 * Locks the folder (refused while another recorder holds it: src/record/folder-lock.ts),
 * creates it if missing, and reads what it holds.
 *
 * @example
 * const folder = openRecordingFolder('recordings/staging');
 * folder.add(exchange); // true: new
 * folder.close();
 */
export function openRecordingFolder(dir: string, options: OpenFolderOptions = {}): RecordingFolder {
  const lock = lockRecordingFolder(dir);
  const partPath = join(dir, PART_FILE);
  let all: Exchange[];
  let recovered: number;
  try {
    all = readFolderExchanges(dir);
    const left = readPart(partPath);
    recovered = left.length;
    all.push(...left);
  } catch (error) {
    lock.release();
    throw error;
  }
  const found = all.length;
  /** Exchanges per key when the folder was opened. */
  const recorded = new Map<string, number>();
  for (const exchange of all) {
    const key = exchangeKey(exchange);
    recorded.set(key, (recorded.get(key) ?? 0) + 1);
  }
  /** Exchanges per key seen in this run (kept or not). */
  const seen = new Map<string, number>();
  let added = 0;
  let known = 0;
  let dropped = 0;
  // A killed run's exchanges are in the part file only: the next write puts them in the HAR.
  let dirty = recovered > 0;
  let closed = false;
  let part: WriteStream | undefined;

  // Appended in batches, a moment after they come: one write per batch, not per request. Each
  // exchange's HAR line is built in the turn after its answer (a setImmediate), so the work is
  // spread over the turns that made it; built all at once when the batch is written, a 50 ms
  // batch of a busy recorder blocked every request behind it for milliseconds (POST +30 % latency at c=10).
  let pending: { exchange: Exchange; line?: string }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const lineOf = (exchange: Exchange) => `${JSON.stringify(exchangeToHarEntry(exchange))}\n`;
  const drain = () => {
    timer = undefined;
    const batch = pending;
    pending = [];
    if (!batch.length || closed) return;
    if (!part) {
      // Opened here, not by the stream later: once `close` removed the file, nothing may create it again.
      part = createWriteStream(partPath, { fd: openSync(partPath, 'a', 0o600) });
      part.on('error', (error) => options.onWriteError?.(error));
    }
    part.write(batch.map((item) => item.line ?? lineOf(item.exchange)).join(''));
  };
  const journal = (exchange: Exchange) => {
    const item: { exchange: Exchange; line?: string } = { exchange };
    pending.push(item);
    setImmediate(() => {
      if (closed || item.line !== undefined) return;
      try {
        item.line = lineOf(exchange);
      } catch {
        // Left to the batch's write, which meets the same error where it always did.
      }
    });
    timer ??= setTimeout(drain, JOURNAL_DELAY_MS);
    timer.unref?.();
  };
  const keep = (exchange: Exchange) => {
    if (closed) throw new Error(`${dir}: the recording folder is closed`);
    all.push(exchange);
    added++;
    dirty = true;
    journal(exchange);
  };
  const addKeyed = (key: string, build: () => Exchange): boolean => {
    const position = seen.get(key) ?? 0;
    seen.set(key, position + 1);
    if (position < (recorded.get(key) ?? 0)) {
      known++;
      return false;
    }
    if (position >= MAX_ANSWERS_PER_REQUEST) {
      dropped++;
      return false;
    }
    keep(build());
    return true;
  };
  const flush = () => {
    if (!dirty) return;
    writeRecording(dir, all);
    dirty = false;
  };

  return {
    dir,
    exchanges: () => all,
    add: (exchange) => addKeyed(exchangeKey(exchange), () => exchange),
    addKeyed,
    append: keep,
    counts: () => ({ found, added, known, dropped }),
    flush,
    close() {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      try {
        flush();
        // Everything is in the HAR file now: the part is no longer needed (its stream may still be writing; the file goes with it).
        part?.end();
        if (existsSync(partPath)) unlinkSync(partPath);
      } finally {
        lock.release();
      }
    },
  };
}
