import type { Exchange } from '../recording/index.js';
import { exchangeKey } from './exchange-key.js';
import { lockRecordingFolder } from './folder-lock.js';
import { readFolderExchanges, writeRecording } from './recording-files.js';

/**
 * A recording folder open for writing: what it held when opened, and what this run adds.
 *
 * Recording again into a folder adds what is new instead of overwriting it (capture on miss). An
 * exchange's identity is its matching key (src/record/exchange-key.ts: the key a recorded rule answers) and its position among
 * the exchanges of that key in one run: the third identical request of a run is the same
 * exchange as the third of the run that recorded the folder, and new only if that run had fewer.
 * So a client that runs the same flow twice records nothing the second time, and a flow that
 * goes one request further records just that one.
 */
export interface RecordingFolder {
  readonly dir: string;
  /** Every exchange in the folder, those found at open first, in recording order. */
  exchanges(): readonly Exchange[];
  /** Keeps the exchange unless the folder has it already; true when it was new. */
  add(exchange: Exchange): boolean;
  /** Keeps the exchange whatever the folder has (a replay's miss: a position not recorded yet). */
  append(exchange: Exchange): void;
  /** Exchanges kept by this run, those left out as already recorded, and those past a request's bound of answers. */
  counts(): { found: number; added: number; known: number; dropped: number };
  /** Writes the folder's files if anything was added since the last write (atomically: a crash leaves the old files). */
  flush(): void;
  /** Flushes and releases the folder for the next recorder. */
  close(): void;
}

/** Answers kept for one request (a recorded rule's sequence is bounded: RECORDED_BOUNDS.maxSteps). */
export const MAX_ANSWERS_PER_REQUEST = 10_000;

export interface OpenFolderOptions {
  /**
   * Writes the files this often while exchanges come in (ms, default 5000; 0: only on flush and
   * close); a folder whose last write took longer than a tenth of that waits ten times as long.
   */
  flushEveryMs?: number;
  /** Told when a background flush fails (a full disk); the exchanges stay in memory for the next try. */
  onFlushError?: (error: Error) => void;
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
  let all: Exchange[];
  try {
    all = readFolderExchanges(dir);
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
  let dirty = false;
  let closed = false;

  /** How long the last write took: a large folder is written less often, so writing never takes more than a tenth of the time. */
  let lastWriteMs = 0;
  let lastWriteAt = performance.now();
  const flush = () => {
    if (!dirty) return;
    const started = performance.now();
    writeRecording(dir, all);
    dirty = false;
    lastWriteAt = performance.now();
    lastWriteMs = lastWriteAt - started;
  };
  const every = options.flushEveryMs ?? 5000;
  const timer =
    every > 0
      ? setInterval(() => {
          if (performance.now() - lastWriteAt < 10 * lastWriteMs) return;
          try {
            flush();
          } catch (error) {
            options.onFlushError?.(error as Error);
          }
        }, every)
      : undefined;
  timer?.unref();

  const keep = (exchange: Exchange) => {
    if (closed) throw new Error(`${dir}: the recording folder is closed`);
    all.push(exchange);
    added++;
    dirty = true;
  };

  return {
    dir,
    exchanges: () => all,
    add(exchange) {
      const key = exchangeKey(exchange);
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
      keep(exchange);
      return true;
    },
    append: keep,
    counts: () => ({ found, added, known, dropped }),
    flush,
    close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      try {
        flush();
      } finally {
        lock.release();
      }
    },
  };
}
