import { describe, expect, it } from 'vitest';
import { ProblemError } from '../errors/problem.js';
import { Collection } from './collection.js';

const filled = (n: number) => {
  const c = new Collection<{ id: string; n: number }>();
  for (let i = 1; i <= n; i++) c.insert({ id: `id-${i}`, n: i });
  return c;
};
const ns = (items: { n: number }[]) => items.map((i) => i.n);

describe('Collection', () => {
  it('keeps a snapshot as it was when taken: later updates, deletes, inserts and remote writes do not reach it', () => {
    const c = filled(3);
    const snapshot = c.snapshot();
    const before = JSON.stringify(snapshot);
    c.update({ id: 'id-2', n: 20 });
    c.delete('id-1');
    c.insert({ id: 'id-4', n: 4 });
    c.applyRemote(3, 'id-3', { id: 'id-3', n: 30 });
    expect(JSON.stringify(snapshot)).toBe(before);
    expect(ns(c.values())).toEqual([20, 30, 4]);
    // An update keeps the item's place (and its sequence) in lists.
    expect(c.seqOf('id-2')).toBe(2);
  });

  it('restores from a snapshot without sharing its pairs with the caller', () => {
    const saved = { nextSeq: 3, items: [[1, { id: 'a', n: 1 }], [2, { id: 'b', n: 2 }]] as [number, { id: string; n: number }][] };
    const c = new Collection<{ id: string; n: number }>();
    c.restore(saved);
    saved.items[0][1] = { id: 'a', n: 99 };
    expect(c.get('a')?.n).toBe(1);
  });

  it('pages in creation order with an opaque cursor, and omits nextCursor on the last page', () => {
    const c = filled(5);
    const first = c.page({ limit: 2 });
    expect(ns(first.items)).toEqual([1, 2]);
    const second = c.page({ limit: 2, cursor: first.nextCursor });
    expect(ns(second.items)).toEqual([3, 4]);
    const last = c.page({ limit: 2, cursor: second.nextCursor });
    expect(ns(last.items)).toEqual([5]);
    expect(last.nextCursor).toBeUndefined();
    expect(c.page({ limit: 5 }).nextCursor).toBeUndefined();
  });

  it('pages DESC newest first', () => {
    const c = filled(5);
    const first = c.page({ limit: 2, sort: 'DESC' });
    expect(ns(first.items)).toEqual([5, 4]);
    expect(ns(c.page({ limit: 10, sort: 'DESC', cursor: first.nextCursor }).items)).toEqual([3, 2, 1]);
  });

  it('keeps cursors stable under inserts and deletes', () => {
    const c = filled(4);
    const first = c.page({ limit: 2 });
    c.delete('id-2');
    c.delete('id-3');
    c.insert({ id: 'id-9', n: 9 });
    expect(ns(c.page({ limit: 10, cursor: first.nextCursor }).items)).toEqual([4, 9]);
  });

  it('filters without losing the cursor position', () => {
    const c = filled(10);
    const even = (i: { n: number }) => i.n % 2 === 0;
    const first = c.page({ limit: 2, filter: even });
    expect(ns(first.items)).toEqual([2, 4]);
    expect(ns(c.page({ limit: 10, filter: even, cursor: first.nextCursor }).items)).toEqual([6, 8, 10]);
  });

  it('refuses a foreign cursor and a cursor of the other sort order with a 400 on query/cursor', () => {
    const c = filled(3);
    const asc = c.page({ limit: 1 }).nextCursor;
    for (const [cursor, sort] of [['bm9wZQ', 'ASC'], [asc, 'DESC']] as const) {
      try {
        c.page({ limit: 1, cursor, sort });
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ProblemError);
        expect((error as ProblemError).status).toBe(400);
        expect((error as ProblemError).init.violations?.[0].field).toBe('query/cursor');
      }
    }
  });

  it('slices by offset and survives a snapshot round trip with its sequence', () => {
    const c = filled(6);
    expect(ns(c.slice(2, 4))).toEqual([3, 4]);
    const copy = new Collection<{ id: string; n: number }>();
    copy.restore(JSON.parse(JSON.stringify(c.snapshot())));
    copy.insert({ id: 'id-7', n: 7 });
    expect(ns(copy.values())).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(copy.page({ limit: 1, sort: 'DESC' }).items[0].n).toBe(7);
  });

  it('rejects duplicate ids and updates in place', () => {
    const c = filled(2);
    expect(() => c.insert({ id: 'id-1', n: 0 })).toThrow(/duplicate/);
    c.update({ id: 'id-1', n: 100 });
    expect(ns(c.values())).toEqual([100, 2]);
  });

  describe('applyRemote (another process\'s writes, pulled by a shared store)', () => {
    it('puts items into their slots in sequence order, replaces and empties slots, and never hands out a used sequence', () => {
      const seen: [string, number][] = [];
      const c = new Collection<{ id: string; n: number }>((id, seq) => seen.push([id, seq]));
      c.insert({ id: 'mine-1', n: 1 });
      c.applyRemote(3, 'theirs-3', { id: 'theirs-3', n: 3 });
      c.applyRemote(2, 'theirs-2', { id: 'theirs-2', n: 2 });
      expect(ns(c.values())).toEqual([1, 2, 3]);
      expect(c.sequence).toBe(4);
      c.applyRemote(2, 'theirs-2', { id: 'theirs-2', n: 20 });
      expect(ns(c.values())).toEqual([1, 20, 3]);
      c.applyRemote(3, 'theirs-3', undefined);
      expect(c.has('theirs-3')).toBe(false);
      expect(ns(c.values())).toEqual([1, 20]);
      expect(c.insert({ id: 'mine-4', n: 4 }) && c.seqOf('mine-4')).toBe(4);
      // Only this process's own writes reach the watcher.
      expect(seen).toEqual([
        ['mine-1', 1],
        ['mine-4', 4],
      ]);
    });

    it('moves an item that another process re-inserted under a new sequence, and advances past sequences it only heard of', () => {
      const c = filled(2);
      c.applyRemote(7, 'id-1', { id: 'id-1', n: 7 });
      expect(c.values().map((i) => i.id)).toEqual(['id-2', 'id-1']);
      expect(c.seqOf('id-1')).toBe(7);
      c.advanceSequence(12);
      c.advanceSequence(5);
      expect(c.sequence).toBe(12);
    });
  });

  it('offloaded: has, insert and snapshot see the items kept elsewhere; dropResident forgets the ones in memory without a write', () => {
    const writes: number[] = [];
    const c = new Collection<{ id: string; n: number }>((_id, seq) => writes.push(seq));
    c.insert({ id: 'id-1', n: 1 });
    c.insert({ id: 'id-2', n: 2 });
    const kept = new Map<string, [number, { id: string; n: number }]>([['id-1', [1, { id: 'id-1', n: 1 }]], ['id-2', [2, { id: 'id-2', n: 2 }]]]);
    c.offload({ has: (id) => kept.has(id), items: () => [...kept.values()] });
    expect(() => c.dropResident()).not.toThrow();
    expect(c.size).toBe(0);
    expect(writes).toEqual([1, 2]);
    expect(c.has('id-1')).toBe(true);
    expect(() => c.insert({ id: 'id-2', n: 9 })).toThrow(/duplicate id id-2/);
    c.insert({ id: 'id-3', n: 3 });
    expect(c.snapshot()).toEqual({ nextSeq: 4, items: [[1, { id: 'id-1', n: 1 }], [2, { id: 'id-2', n: 2 }], [3, { id: 'id-3', n: 3 }]] });
    // A restore brings its own items: nothing is kept elsewhere any more.
    c.restore({ nextSeq: 2, items: [[1, { id: 'x', n: 0 }]] });
    expect(c.isOffloaded).toBe(false);
    expect(c.has('id-1')).toBe(false);
    expect(() => c.dropResident()).toThrow(/not offloaded/);
  });
});
