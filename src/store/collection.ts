import { ProblemError } from '../errors/problem.js';

/**
 * An ordered collection of one resource type inside one scope (account, company, global).
 * Items keep their insertion sequence, which makes cursors stable under inserts and deletes:
 * a cursor names "after sequence N", not "after position N".
 */
export interface Entity {
  id: string;
}

export type SortOrder = 'ASC' | 'DESC';

export interface PageRequest<T> {
  limit: number;
  sort?: SortOrder;
  cursor?: string;
  /** Keeps only matching items; pages stay O(limit) when most items match. */
  filter?: (item: T) => boolean;
}

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * A stored item with its insertion sequence, in the shape a snapshot lists it. Never changed once
 * made: an update puts a new slot in its place, so a snapshot shares the slots instead of building
 * one pair per item (an export of 100k items copies one array; 100k fresh pairs that all survive
 * made the young-generation GC copy them, pausing the mock ~60–90 ms).
 */
type Slot<T> = readonly [seq: number, value: T];

export interface CollectionSnapshot<T> {
  nextSeq: number;
  /** [sequence, item] in sequence order; shared with the collection, so never changed. */
  items: readonly (readonly [number, T])[];
  /**
   * The same pairs as JSON text, `[seq,item]` each, read as they are asked for: a durable store's
   * snapshot of a scope that is not in memory streams them from its file without building the
   * items (an export of a 100k-item account). Absent: encode `items`.
   */
  encodedItems?(): Iterable<string>;
}

/**
 * Told about every write of a collection with the slot's sequence (a durable store records what
 * to commit, keyed by sequence). The memory store passes none, so the in-memory path pays one
 * undefined check per write.
 */
export type CollectionWatcher = (id: string, seq: number) => void;

/**
 * Items of a collection kept elsewhere and not in memory (a durable store's file): a ledger of
 * ids that is only ever asked "is this id taken?" and exported, never listed (issued carrier
 * numbers, issue 27). Looked up by id through an index; read whole only by an export.
 */
export interface OffloadedItems<T> {
  has(id: string): boolean;
  /** Every offloaded item, by sequence. */
  items(): [number, T][];
}

export class Collection<T extends Entity> {
  private slots: Slot<T>[] = [];
  private readonly byId = new Map<string, Slot<T>>();
  private nextSeq = 1;
  private offloaded?: OffloadedItems<T>;

  constructor(private readonly watcher?: CollectionWatcher) {}

  get size(): number {
    return this.byId.size;
  }

  get(id: string): T | undefined {
    return this.byId.get(id)?.[1];
  }

  /** Whether the id is taken, in memory or (an offloaded collection) where its items are kept. */
  has(id: string): boolean {
    return this.byId.has(id) || (this.offloaded?.has(id) ?? false);
  }

  insert(value: T): T {
    if (this.has(value.id)) throw new Error(`duplicate id ${value.id}`);
    const slot: Slot<T> = [this.nextSeq++, value];
    this.slots.push(slot);
    this.byId.set(value.id, slot);
    this.watcher?.(value.id, slot[0]);
    return value;
  }

  /** Replaces an existing item in place (keeps its position in lists). */
  update(value: T): T {
    const slot = this.byId.get(value.id);
    if (!slot) throw new Error(`no item ${value.id}`);
    this.replaceSlot([slot[0], value]);
    this.watcher?.(value.id, slot[0]);
    return value;
  }

  delete(id: string): T | undefined {
    const slot = this.byId.get(id);
    if (!slot) return undefined;
    this.byId.delete(id);
    this.slots.splice(this.indexAfter(slot[0] - 1), 1);
    this.watcher?.(id, slot[0]);
    return slot[1];
  }

  /** Items [start, end) in creation order (offset paging): O(end - start). */
  slice(start: number, end: number): T[] {
    return this.slots.slice(start, end).map((s) => s[1]);
  }

  values(): T[] {
    return this.slots.map((s) => s[1]);
  }

  find(predicate: (item: T) => boolean): T | undefined {
    return this.slots.find((s) => predicate(s[1]))?.[1];
  }

  filter(predicate: (item: T) => boolean): T[] {
    const out: T[] = [];
    for (const [, value] of this.slots) if (predicate(value)) out.push(value);
    return out;
  }

  /**
   * One page in creation order. Cost: a binary search for the cursor plus the items visited.
   * @example collection.page({ limit: 20, sort: 'DESC', cursor })
   */
  page(request: PageRequest<T>): Page<T> {
    const sort = request.sort ?? 'ASC';
    const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor, sort);
    const items: T[] = [];
    const step = sort === 'ASC' ? 1 : -1;
    let i =
      sort === 'ASC'
        ? after === undefined ? 0 : this.indexAfter(after)
        : (after === undefined ? this.slots.length : this.indexAfter(after - 1)) - 1;
    let lastSeq = 0;
    for (; i >= 0 && i < this.slots.length; i += step) {
      const [seq, value] = this.slots[i];
      if (request.filter && !request.filter(value)) continue;
      if (items.length === request.limit) {
        return { items, nextCursor: encodeCursor(sort, lastSeq) };
      }
      items.push(value);
      lastSeq = seq;
    }
    return { items };
  }

  /** Insertion sequence of an item (durable stores keep it, so cursors survive a restart). */
  seqOf(id: string): number | undefined {
    return this.byId.get(id)?.[0];
  }

  /** The sequence the next insert gets (deletes never hand a sequence out twice). */
  get sequence(): number {
    return this.nextSeq;
  }

  snapshot(): CollectionSnapshot<T> {
    if (!this.offloaded) return { nextSeq: this.nextSeq, items: this.slots.slice() };
    const inMemory = new Set(this.slots.map(([seq]) => seq));
    const kept: Slot<T>[] = this.offloaded.items().filter(([seq]) => !inMemory.has(seq));
    return { nextSeq: this.nextSeq, items: [...kept, ...this.slots].sort((a, b) => a[0] - b[0]) };
  }

  /**
   * From now on the items are kept by `where` (which holds every item written so far) and only
   * the ones written after the last `dropResident()` stay in memory: `has`, `insert` and
   * `snapshot` stay exact; `get`, `size`, lists and pages see the items in memory only. For
   * collections that are a ledger of ids (a durable store's issued carrier numbers).
   */
  offload(where: OffloadedItems<T>): void {
    this.offloaded = where;
  }

  /** Whether the items are kept elsewhere (offload). */
  get isOffloaded(): boolean {
    return this.offloaded !== undefined;
  }

  /** Forgets the items in memory (not a write): `where` holds them now. Only for an offloaded collection. */
  dropResident(): void {
    if (!this.offloaded) throw new Error('dropResident() of a collection that is not offloaded');
    this.slots = [];
    this.byId.clear();
  }

  restore(snapshot: CollectionSnapshot<T>): void {
    this.offloaded = undefined;
    // Copied pairs: the snapshot may be the caller's own arrays (a parsed import), which the
    // collection must not share.
    this.slots = snapshot.items.map(([seq, value]): Slot<T> => [seq, value]);
    this.byId.clear();
    for (const slot of this.slots) this.byId.set(slot[1].id, slot);
    this.nextSeq = snapshot.nextSeq;
  }

  /**
   * Puts into this copy what another process wrote (a shared store's pull): `value` in slot
   * `seq`, or, with no value, the slot emptied. Not told to the watcher: it is not a write of
   * this process, and it must not be written back.
   * @example collection.applyRemote(7, id, address); collection.applyRemote(7, id, undefined) // deleted
   */
  applyRemote(seq: number, id: string, value: T | undefined): void {
    const known = this.byId.get(id);
    if (known && known[0] === seq && value !== undefined) {
      this.replaceSlot([seq, value]);
    } else {
      if (known) this.removeSlot(known);
      const index = this.indexAfter(seq - 1);
      const occupant = this.slots[index];
      if (occupant?.[0] === seq) this.removeSlot(occupant);
      if (value !== undefined) {
        const slot: Slot<T> = [seq, value];
        this.slots.splice(this.indexAfter(seq - 1), 0, slot);
        this.byId.set(id, slot);
      }
    }
    this.advanceSequence(seq + 1);
  }

  /** Never hands out a sequence below `next` (another process has used those). */
  advanceSequence(next: number): void {
    if (next > this.nextSeq) this.nextSeq = next;
  }

  private removeSlot(slot: Slot<T>): void {
    this.byId.delete(slot[1].id);
    this.slots.splice(this.indexAfter(slot[0] - 1), 1);
  }

  /** Puts `slot` where the slot of the same sequence is (its item keeps its id). */
  private replaceSlot(slot: Slot<T>): void {
    this.slots[this.indexAfter(slot[0] - 1)] = slot;
    this.byId.set(slot[1].id, slot);
  }

  /** Index of the first slot whose seq is greater than `seq` (slots are sorted by seq). */
  private indexAfter(seq: number): number {
    let lo = 0;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.slots[mid][0] <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function encodeCursor(sort: SortOrder, seq: number): string {
  return Buffer.from(`${sort}:${seq}`).toString('base64url');
}

function decodeCursor(cursor: string, sort: SortOrder): number {
  const match = /^(ASC|DESC):(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidCursor('is not a cursor this service issued');
  if (match[1] !== sort) throw invalidCursor(`was issued for sort=${match[1]}; pass the same sort with it`);
  return Number(match[2]);
}

function invalidCursor(message: string): ProblemError {
  return new ProblemError('validation-error', {
    detail: `query parameter cursor ${message}`,
    violations: [{ field: 'query/cursor', message }],
  });
}
