import { globTest } from '../scenarios/linear-pattern.js';
import { redactQuery } from '../util/redact.js';
import { ExchangeRing, type ExchangeInput, type JournalExchange } from './exchange-ring.js';

export type { ExchangeInput, JournalExchange, JournalMessage } from './exchange-ring.js';

/**
 * The request journal: the last N requests to the API (not to /__admin), newest kept, oldest
 * dropped, so a test can ask what reached the mock and how it answered. Times are on the
 * virtual clock, so time travel and Retry-After checks line up with what the client saw.
 */
export type JournalOutcome = 'completed' | 'reset' | 'truncated';

export interface JournalEntry {
  /** Increasing sequence number of the entry in this instance. */
  seq: number;
  requestId: string;
  /** Arrival on the virtual clock (ISO 8601). */
  at: string;
  method: string;
  path: string;
  /** As sent, with the values of secret parameters (access_token, client_secret…) shortened. */
  query?: string;
  /** Absent when the connection was reset before an answer. */
  status?: number;
  outcome: JournalOutcome;
  /** Real time the mock took, in ms. */
  latencyMs: number;
  operationId?: string;
  accountId?: string;
  companyId?: string;
  /** Rate-limit key the request was counted under (credential). */
  credential?: string;
  /** Problem type slug of a 4xx/5xx answer. */
  problem?: string;
  /** Retry-After of the answer, in seconds. */
  retryAfter?: number;
  /** Scenario rules that acted on the request: "scenario/rule". */
  scenarios?: string[];
  /**
   * The contract's verdict: `valid` (request and answer checked, no violation), `invalid-request`,
   * `invalid-response`, or `not-checked` (no operation matched, or refused before validation).
   */
  validation?: JournalValidation;
  /** The process that served it, when several share a store (--data postgres://…). */
  process?: number;
}

export type JournalValidation = 'valid' | 'invalid-request' | 'invalid-response' | 'not-checked';

/** An entry and, when the journal kept it, its exchange. */
export interface JournalEntryWithExchange {
  entry: JournalEntry;
  exchange?: JournalExchange;
}

export interface JournalFilter {
  accountId?: string;
  /** Exact path, or a glob (`*` one segment, `**` any). */
  path?: string;
  method?: string;
  /** Exact status (429) or class ('4xx'). */
  status?: number | string;
  operationId?: string;
  problem?: string;
  scenario?: string;
  /** Virtual-clock bounds, inclusive `since`, exclusive `until` (ISO 8601 or epoch ms). */
  since?: string | number;
  until?: string | number;
  /** At most this many (the newest), returned oldest first. Default 100. */
  limit?: number;
}

export interface Journal {
  readonly capacity: number;
  /** Keeps an entry (and its exchange, when given) and tells the subscribers. */
  record(entry: Omit<JournalEntry, 'seq'>, exchange?: ExchangeInput): JournalEntry;
  /** One entry with its exchange, while the journal still holds it. */
  get(seq: number): JournalEntryWithExchange | undefined;
  /** Calls `listener` with every entry recorded from now on; returns the unsubscribe function. */
  subscribe(listener: (entry: JournalEntry) => void): () => void;
  /** Matching entries, oldest first (the newest `limit` of them). */
  find(filter?: JournalFilter): JournalEntry[];
  /** Drops every entry, or those of one account. Returns how many were dropped. */
  clear(accountId?: string): number;
  readonly size: number;
}

export const DEFAULT_JOURNAL_CAPACITY = 1000;
/** Bytes of exchanges kept per journal entry on average: a typical JSON exchange takes 1–2 KiB. */
const EXCHANGE_BYTES_PER_ENTRY = 4096;
/** However large the journal (--journal-size), the exchanges take at most this much memory. */
const EXCHANGE_BYTES_MAX = 64 * 1024 * 1024;
/** Where an entry's exchange sits in the ring (a symbol: not serialised with the entry). */
const EXCHANGE_AT = Symbol('exchange');
export const DEFAULT_JOURNAL_LIMIT = 100;

type Positioned = JournalEntry & { [EXCHANGE_AT]?: number };

/**
 * Successful exchanges kept per second at most; failed ones (4xx, 5xx, cut off) are always kept.
 * Copying an exchange costs about 5 µs per request in place (a tenth of a GET's whole cost): under
 * a load test the journal keeps what someone will look for — the failures — and a sample of the
 * rest; at a person's pace it keeps everything.
 */
export const SUCCESSFUL_EXCHANGES_PER_SECOND = 200;

/** `take()` answers true `limit` times per second of real time (a function: asked at the start of each second). */
export function perSecondBudget(limit: number | (() => number)) {
  const limitNow = typeof limit === 'number' ? () => limit : limit;
  let second = 0;
  let left = limitNow();
  return {
    take(): boolean {
      const now = Math.floor(performance.now() / 1000);
      if (now !== second) {
        second = now;
        left = limitNow();
      }
      return left-- > 0;
    },
  };
}

function toMs(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'number' ? value : Date.parse(value);
}

function statusTest(status: number | string): (value: number | undefined) => boolean {
  const text = String(status).toLowerCase();
  if (/^[1-5]xx$/.test(text)) return (value) => value !== undefined && Math.floor(value / 100) === Number(text[0]);
  const exact = Number(text);
  return (value) => value === exact;
}

/**
 * A ring buffer of journal entries; `find` scans newest to oldest and stops at `limit`.
 * @example
 * const journal = createJournal({ capacity: 500 });
 * journal.find({ accountId, status: 429 })
 */
export function createJournal(options: { capacity?: number } = {}): Journal {
  const capacity = Math.max(1, Math.floor(options.capacity ?? DEFAULT_JOURNAL_CAPACITY));
  let entries: JournalEntry[] = [];
  let start = 0;
  let seq = 0;
  const exchanges = new ExchangeRing(Math.min(capacity * EXCHANGE_BYTES_PER_ENTRY, EXCHANGE_BYTES_MAX));
  const successes = perSecondBudget(SUCCESSFUL_EXCHANGES_PER_SECOND);
  const listeners = new Set<(entry: JournalEntry) => void>();

  const withExchange = (entry: JournalEntry): JournalEntryWithExchange => {
    const at = (entry as Positioned)[EXCHANGE_AT];
    const exchange = at === undefined ? undefined : exchanges.read(at);
    return exchange ? { entry: { ...entry }, exchange } : { entry: { ...entry } };
  };
  const ordered = (): JournalEntry[] => (start === 0 ? entries : [...entries.slice(start), ...entries.slice(0, start)]);

  return {
    capacity,
    get size() {
      return entries.length;
    },
    record(input, exchange) {
      const entry: JournalEntry = { seq: ++seq, ...input };
      // A token in the query string (?access_token=…) is shortened like one in a header.
      if (entry.query) entry.query = redactQuery(entry.query);
      if (entries.length < capacity) entries.push(entry);
      else {
        entries[start] = entry;
        start = (start + 1) % capacity;
      }
      if (exchange && (entry.status === undefined || entry.status >= 400 || successes.take())) (entry as Positioned)[EXCHANGE_AT] = exchanges.write(exchange);
      for (const listener of listeners) {
        // A subscriber (a live inspector) must never break recording or the request.
        try {
          listener(entry);
        } catch {
          listeners.delete(listener);
        }
      }
      return entry;
    },
    get(wanted) {
      // Usually at its seq's distance from the oldest; after clearing one account's entries, found by a scan.
      const all = ordered();
      const guess = all.length ? all[wanted - all[0].seq] : undefined;
      const entry = guess?.seq === wanted ? guess : all.find((e) => e.seq === wanted);
      return entry && withExchange(entry);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    find(filter = {}) {
      const limit = Math.max(0, Math.min(filter.limit ?? DEFAULT_JOURNAL_LIMIT, capacity));
      const since = toMs(filter.since);
      const until = toMs(filter.until);
      const path = filter.path ? globTest(filter.path) : undefined;
      const status = filter.status !== undefined ? statusTest(filter.status) : undefined;
      const method = filter.method?.toUpperCase();
      const out: JournalEntry[] = [];
      const all = ordered();
      for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
        const e = all[i];
        if (filter.accountId && e.accountId !== filter.accountId) continue;
        if (path && !path(e.path)) continue;
        if (method && e.method !== method) continue;
        if (status && !status(e.status)) continue;
        if (filter.operationId && e.operationId !== filter.operationId) continue;
        if (filter.problem && e.problem !== filter.problem) continue;
        if (filter.scenario && !e.scenarios?.some((s) => s === filter.scenario || s.startsWith(`${filter.scenario}/`))) continue;
        const at = Date.parse(e.at);
        if (since !== undefined && at < since) continue;
        if (until !== undefined && at >= until) continue;
        out.push(e);
      }
      return out.reverse();
    },
    clear(accountId) {
      const before = entries.length;
      entries = accountId === undefined ? [] : ordered().filter((e) => e.accountId !== accountId);
      start = 0;
      return before - entries.length;
    },
  };
}
