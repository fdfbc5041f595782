import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, readSync, statSync, truncateSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { harToExchanges, HAR_CREATOR, redactExchange, type Exchange } from '../recording/index.js';
import { exchangeKey } from './exchange-key.js';
import { lockRecordingFolder } from './folder-lock.js';
import { isPartLine, parsePartLine, partLine } from './part-line.js';
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
 * While a run records, each new exchange is appended, secrets shortened, as one compact line
 * (src/record/part-line.ts) to `recording.har.part` (in batches every 50 ms, off the request's
 * path), and not kept in memory; `close` writes the HAR file and the scenario whole from what the
 * folder held and the part, and removes the part. A run that was killed leaves the part behind,
 * and the next one to open the folder takes its exchanges in: nothing recorded is lost.
 */
export interface RecordingFolder {
  readonly dir: string;
  /** Every exchange in the folder, those found at open first, in recording order (this run's read back from the part file). */
  exchanges(): readonly Exchange[];
  /** Keeps the exchange unless the folder has it already; true when it was new. */
  add(exchange: Exchange): boolean;
  /**
   * As add, for an exchange built only when it is kept: `key` is its exchangeKey. A recorder
   * converts just the request to know the key; an answer the folder has already, or one past a
   * request's bound, is never converted.
   */
  addKeyed(key: string, build: () => Exchange): boolean;
  /**
   * As addKeyed, for an exchange given as its part-file line, built only when it is kept:
   * partLine (or partLineText) of the exchange with its secrets shortened (redactExchange). A
   * recorder's way: the line is all that is made of an exchange while it runs.
   */
  addLine(key: string, line: () => string): boolean;
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

/** The append-only file of a run's exchanges, one line each (src/record/part-line.ts), until the run closes. */
export const PART_FILE = `${HAR_FILE}.part`;

export interface OpenFolderOptions {
  /** Told when the part file cannot be written (a full disk): the exchanges stay in memory, written at close. */
  onWriteError?: (error: Error) => void;
}

/** The exchanges of part-file text: partLines, or HAR entries (a killed run of an older shipmock); a line cut by a kill is left out. */
function partExchanges(text: string): Exchange[] {
  const exchanges: Exchange[] = [];
  let entries: unknown[] = [];
  const takeEntries = () => {
    if (entries.length) exchanges.push(...harToExchanges({ log: { version: '1.2', creator: HAR_CREATOR, entries } }).exchanges);
    entries = [];
  };
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      if (isPartLine(line)) {
        const exchange = parsePartLine(line);
        takeEntries();
        exchanges.push(exchange);
      } else entries.push(JSON.parse(line));
    } catch {
      // The last line, cut mid-write.
    }
  }
  takeEntries();
  return exchanges;
}

/** What a folder holds when opened: its HAR's exchanges and a killed run's, and where this run's part lines start. */
function readFolder(dir: string, partPath: string): { found: Exchange[]; recovered: number; partStart: number } {
  const found = readFolderExchanges(dir);
  if (!existsSync(partPath)) return { found, recovered: 0, partStart: 0 };
  const text = readFileSync(partPath, 'utf8');
  const left = partExchanges(text);
  found.push(...left);
  // A line the kill cut is cut off, so that this run's lines start on a line of their own.
  const partStart = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1));
  if (partStart !== statSync(partPath).size) truncateSync(partPath, partStart);
  return { found, recovered: left.length, partStart };
}

/** Bytes of lines a part appender holds before it writes them whatever the time (a busy recorder's 50 ms). */
const PART_BATCH_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/**
 * A run's lines in the part file, from `partStart` on: appended in batches, a moment after they
 * come — one write per batch, not per request. A batch is one synchronous write (page cache: tens
 * of µs for a busy recorder's 50 ms), so what was appended is in the file whenever it is read back.
 * Each line is encoded into the batch's buffer as it comes (reused from batch to batch), so no
 * line outlives its turn as a string: nothing of a busy recorder's 50 ms is copied from young
 * to old heap space, and a batch is written without joining its lines first.
 */
export function partAppender(partPath: string, partStart: number, onWriteError: ((error: Error) => void) | undefined) {
  let fd: number | undefined;
  let written = partStart;
  /** Lines the part file could not take (a full disk): kept here, written with the folder's files. */
  const unwritten: string[] = [];
  let batch = Buffer.allocUnsafe(64 * 1024);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const drain = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (used === 0) return;
    const length = used;
    used = 0;
    try {
      // Opened here, not at open: a folder that records nothing gets no part file.
      fd ??= openSync(partPath, 'a', 0o600);
      for (let at = 0; at < length; ) at += writeSync(fd, batch, at, length - at);
      written += length;
    } catch (error) {
      // The part keeps its whole batches only; from now on lines stay in memory.
      try {
        if (fd !== undefined) ftruncateSync(fd, written);
      } catch {
        // Left as it is: the reads stop at `written` anyway.
      }
      for (const line of batch.toString('utf8', 0, length).split('\n')) if (line) unwritten.push(`${line}\n`);
      onWriteError?.(error as Error);
    }
  };
  return {
    /** A part line (partLine, or partLineText: the newline is added). */
    push(line: string) {
      if (unwritten.length) return void unwritten.push(line);
      const most = line.length * 3 + 1;
      if (used + most > batch.length) {
        if (used > 0 && used + most > PART_BATCH_BYTES) drain();
        if (unwritten.length) return void unwritten.push(line);
        if (used + most > batch.length) {
          const larger = Buffer.allocUnsafe(Math.max(batch.length * 2, used + most));
          batch.copy(larger, 0, 0, used);
          batch = larger;
        }
      }
      used += batch.write(line, used);
      if (line.charCodeAt(line.length - 1) !== NEWLINE) batch[used++] = NEWLINE;
      if (!timer) {
        timer = setTimeout(drain, JOURNAL_DELAY_MS);
        timer.unref?.();
      }
    },
    /** The run's exchanges: read back from the part file, and those it could not take. */
    readBack(): Exchange[] {
      drain();
      const kept: Exchange[] = [];
      if (written > partStart) {
        const bytes = Buffer.alloc(written - partStart);
        const reader = openSync(partPath, 'r');
        try {
          for (let at = 0, read = -1; at < bytes.length && read !== 0; at += read) read = readSync(reader, bytes, at, bytes.length - at, partStart + at);
        } finally {
          closeSync(reader);
        }
        for (const line of bytes.toString('utf8').split('\n')) if (line) kept.push(parsePartLine(line));
      }
      for (const line of unwritten) kept.push(parsePartLine(line));
      return kept;
    },
    close() {
      if (timer) clearTimeout(timer);
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
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
  let opened: ReturnType<typeof readFolder>;
  try {
    opened = readFolder(dir, partPath);
  } catch (error) {
    lock.release();
    throw error;
  }
  const { found, recovered } = opened;
  /** Exchanges per key when the folder was opened. */
  const recorded = new Map<string, number>();
  for (const exchange of found) {
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
  const part = partAppender(partPath, opened.partStart, options.onWriteError);
  const keep = (line: string) => {
    if (closed) throw new Error(`${dir}: the recording folder is closed`);
    part.push(line);
    added++;
    dirty = true;
  };
  const addLine = (key: string, line: () => string): boolean => {
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
    keep(line());
    return true;
  };
  const lineOf = (exchange: Exchange) => partLine(redactExchange(exchange));
  const addKeyed = (key: string, build: () => Exchange) => addLine(key, () => lineOf(build()));
  const flush = () => {
    if (!dirty) return;
    writeRecording(dir, [...found, ...part.readBack()]);
    dirty = false;
  };

  return {
    dir,
    exchanges: () => [...found, ...part.readBack()],
    add: (exchange) => addKeyed(exchangeKey(exchange), () => exchange),
    addKeyed,
    addLine,
    append: (exchange) => keep(lineOf(exchange)),
    counts: () => ({ found: found.length, added, known, dropped }),
    flush,
    close() {
      if (closed) return;
      try {
        flush();
        closed = true;
        // Everything is in the HAR file now: the part is no longer needed.
        if (existsSync(partPath)) unlinkSync(partPath);
      } finally {
        // Failed, the part stays (the next run takes it in).
        closed = true;
        part.close();
        lock.release();
      }
    },
  };
}
