import type { Collection } from '../store/collection.js';
import type { Scope } from '../store/store.js';

/**
 * Drift: where the mock answered a request differently from the real service (`shipmock
 * compare`). Every compared exchange is one record, kept in the store's global scope (collection
 * `drift`), so a full reset drops it, GET /__admin/state exports it and a `--data` file keeps it;
 * bounded like the journal: the oldest records go once `capacity` is reached.
 */

/** What differed: the status, a header that matters, or a field of the JSON body. */
export type DriftKind = 'status' | 'header' | 'body';

/**
 * How it differed. `value`: both have it, with different values (volatile fields never differ
 * by value); `type`: a JSON type differs (string vs number, object vs array); `missing-in-mock` /
 * `missing-upstream`: one side has the field or header, the other not.
 */
export type DriftIssue = 'value' | 'type' | 'missing-in-mock' | 'missing-upstream';

export const DRIFT_KINDS: readonly DriftKind[] = ['status', 'header', 'body'];

export interface DriftDifference {
  kind: DriftKind;
  /** `status`, `header/content-type`, or a JSON path of the body (`$.items[0].name`, indexes kept). */
  field: string;
  issue: DriftIssue;
  /** The real service's value as JSON text (shortened; secrets redacted), absent when it had none. */
  upstream?: string;
  /** The mock's value, likewise. */
  mock?: string;
}

export interface DriftRecord {
  /** `d` and a sequence number: stable while the record is kept. */
  id: string;
  /** When it was compared (the mock's clock). */
  at: string;
  method: string;
  /** The client's path and query (as sent to the real service; secrets in the query shortened). */
  path: string;
  /** The contract operation, when the route is one of the contract. */
  operationId?: string;
  upstreamStatus: number;
  mockStatus: number;
  /** Empty when the mock answered like the real service. */
  differences: DriftDifference[];
  /** Why a part was not compared (a binary body, an answer that is not JSON, the mock unreachable). */
  notes?: string[];
}

export interface DriftQuery {
  operationId?: string;
  method?: string;
  /** Records whose path (without query) starts with this. */
  path?: string;
  kind?: DriftKind;
  /** Records with a difference in exactly this field (`header/location`, `$.items[*].name`: indexes as `[*]` match any). */
  field?: string;
  /** true: only drifted records; false: only clean ones; absent: both. */
  drifted?: boolean;
  limit: number;
  cursor?: string;
}

export interface DriftSummary {
  compared: number;
  drifted: number;
  /** operationId (or "METHOD path" outside the contract) → requests, drifted requests and the count per field. */
  byOperation: Record<string, { requests: number; drifted: number; fields: Record<string, number> }>;
  /** Fields (indexes as `[*]`) with how often they differed, most frequent first. */
  byField: { field: string; kind: DriftKind; count: number }[];
}

export interface DriftPage {
  capacity: number;
  /** Records held now. */
  size: number;
  /** Over every matching record held (not only this page). */
  summary: DriftSummary;
  /** Newest first. */
  items: DriftRecord[];
  nextCursor?: string;
}

export const DEFAULT_DRIFT_CAPACITY = 1000;
const COLLECTION = 'drift';
const NEXT = 'drift.next';
const CAPACITY = 'drift.capacity';

/** `$.items[3].name` → `$.items[*].name`: one field whatever the index. */
export const fieldPattern = (field: string): string => field.replace(/\[\d+\]/g, '[*]');

const operationKey = (record: DriftRecord): string => record.operationId ?? `${record.method} ${record.path.split('?')[0]}`;

export interface DriftLog {
  /** Keeps a compared exchange (dropping the oldest beyond capacity) and answers the stored record. */
  record(entry: Omit<DriftRecord, 'id' | 'at'>): DriftRecord;
  find(query: DriftQuery): DriftPage;
  /** Drops every record; answers how many there were. */
  clear(): number;
  readonly capacity: number;
  readonly size: number;
}

export interface DriftLogOptions {
  /** The scope the records live in (the store's global scope), read on each use: a reset or an import replaces it. */
  scope: () => Scope;
  now: () => string;
  /** Records kept at most (a writer sets it; kept in the scope, so the control plane reports the one in force). */
  capacity?: number;
  /** Asks the store for a commit (Store.touch): records are written outside any request of the mock. */
  touch?: () => void;
}

/**
 * The drift records of a mock.
 * @example const drift = createDriftLog({ scope: () => store.global, now: clock.nowIso, capacity: 500, touch: store.touch }); drift.record({ … });
 */
export function createDriftLog({ scope, now, capacity, touch }: DriftLogOptions): DriftLog {
  // Read through the function each time: a reset or an import replaces the scope.
  const records = (): Collection<DriftRecord> => scope().collection<DriftRecord>(COLLECTION);
  const capacityNow = (): number => {
    const stored = scope().values.get(CAPACITY);
    return typeof stored === 'number' ? stored : DEFAULT_DRIFT_CAPACITY;
  };
  if (capacity !== undefined) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('drift capacity must be a positive integer');
    scope().values.set(CAPACITY, capacity);
  }

  function record(entry: Omit<DriftRecord, 'id' | 'at'>): DriftRecord {
    const values = scope().values;
    const next = typeof values.get(NEXT) === 'number' ? (values.get(NEXT) as number) : 1;
    values.set(NEXT, next + 1);
    // The capacity a writer set may have gone with a reset: the one it asked for holds again.
    if (capacity !== undefined && values.get(CAPACITY) !== capacity) values.set(CAPACITY, capacity);
    const stored: DriftRecord = { id: `d${next}`, at: now(), ...entry };
    const collection = records();
    collection.insert(stored);
    const limit = capacityNow();
    while (collection.size > limit) collection.delete(collection.slice(0, 1)[0].id);
    touch?.();
    return stored;
  }

  function find(query: DriftQuery): DriftPage {
    const collection = records();
    const matches = (r: DriftRecord): boolean =>
      (query.operationId === undefined || r.operationId === query.operationId) &&
      (query.method === undefined || r.method === query.method) &&
      (query.path === undefined || r.path.split('?')[0].startsWith(query.path)) &&
      (query.drifted === undefined || r.differences.length > 0 === query.drifted) &&
      (query.kind === undefined || r.differences.some((d) => d.kind === query.kind)) &&
      (query.field === undefined || r.differences.some((d) => d.field === query.field || fieldPattern(d.field) === query.field));
    const page = collection.page({ limit: query.limit, sort: 'DESC', cursor: query.cursor, filter: matches });
    return { capacity: capacityNow(), size: collection.size, summary: summarize(collection.filter(matches)), items: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  function clear(): number {
    const collection = records();
    const count = collection.size;
    for (const record of collection.values()) collection.delete(record.id);
    if (count) touch?.();
    return count;
  }

  return {
    record,
    find,
    clear,
    get capacity() {
      return capacityNow();
    },
    get size() {
      return records().size;
    },
  };
}

/** Counts per operation and per field over the records given. */
export function summarize(records: readonly DriftRecord[]): DriftSummary {
  const byOperation: DriftSummary['byOperation'] = {};
  const fields = new Map<string, { field: string; kind: DriftKind; count: number }>();
  let drifted = 0;
  for (const record of records) {
    const entry = (byOperation[operationKey(record)] ??= { requests: 0, drifted: 0, fields: {} });
    entry.requests++;
    if (record.differences.length === 0) continue;
    drifted++;
    entry.drifted++;
    for (const difference of record.differences) {
      const field = fieldPattern(difference.field);
      entry.fields[field] = (entry.fields[field] ?? 0) + 1;
      const key = `${difference.kind} ${field}`;
      const counted = fields.get(key) ?? { field, kind: difference.kind, count: 0 };
      counted.count++;
      fields.set(key, counted);
    }
  }
  const byField = [...fields.values()].sort((a, b) => b.count - a.count || a.field.localeCompare(b.field));
  return { compared: records.length, drifted, byOperation, byField };
}
