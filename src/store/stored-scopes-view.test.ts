import { describe, expect, it } from 'vitest';
import { storedScopesView, type ViewRows } from './stored-scopes-view.js';

/** A stored scope `account:a` with `n` things (bodies as JSON text), counting the pages read and whether it was closed. */
function storedRows(n: number) {
  const things = Array.from({ length: n }, (_, i): [number, string] => [i + 1, JSON.stringify({ id: `t${i + 1}` })]);
  const seen = { pages: 0, closed: 0 };
  const rows: ViewRows = {
    collections: (scope) => (scope === 'account:a' ? [['things', n + 1, n ? n : null], ['untouched', 1, null]] : []),
    values: (scope) => (scope === 'account:a' ? [['settings', '{"x":1}']] : []),
    page(_scope, _collection, after, limit) {
      seen.pages++;
      return things.filter(([seq]) => seq > after).slice(0, limit);
    },
    close: () => void seen.closed++,
  };
  return { rows, seen };
}

describe('a view of stored scopes, read a page at a time', () => {
  it('gives a scope its collections and values at once and its items only when they are read, in pages', () => {
    const { rows, seen } = storedRows(5);
    const view = storedScopesView(rows, 2);
    const scope = view.snapshot('account:a')!;
    expect(Object.keys(scope.collections)).toEqual(['things']);
    expect(scope.values).toEqual({ settings: { x: 1 } });
    expect(view.snapshot('account:b')).toBeUndefined();
    expect(seen.pages).toBe(0);
    expect([...scope.collections.things.encodedItems!()]).toEqual(['[1,{"id":"t1"}]', '[2,{"id":"t2"}]', '[3,{"id":"t3"}]', '[4,{"id":"t4"}]', '[5,{"id":"t5"}]']);
    expect(seen.pages).toBe(3);
  });

  it('closes once it is sealed and every collection it gave out has been read, not before, and once', () => {
    const { rows, seen } = storedRows(3);
    const view = storedScopesView(rows);
    const first = view.snapshot('account:a')!;
    const second = view.snapshot('account:a')!;
    view.seal();
    expect(seen.closed).toBe(0);
    expect(first.collections.things.items.map(([seq]) => seq)).toEqual([1, 2, 3]);
    expect(seen.closed).toBe(0);
    [...second.collections.things.encodedItems!()];
    expect(seen.closed).toBe(1);
    // Read again: from what was read (items), or from the rows (encodedItems); no second close.
    expect([...first.collections.things.encodedItems!()]).toHaveLength(3);
    expect(seen.closed).toBe(1);
  });

  it('gives up what it gave out and was not read when it is closed: a later read fails instead of reading outside its moment', () => {
    const { rows, seen } = storedRows(3);
    const view = storedScopesView(rows);
    const scope = view.snapshot('account:a')!;
    view.seal();
    view.close();
    view.close();
    expect(seen.closed).toBe(1);
    expect(() => scope.collections.things.items).toThrow(/given up/);
    expect(seen.pages).toBe(0);
  });

  it('closes at once when it gave nothing out', () => {
    const { rows, seen } = storedRows(0);
    const view = storedScopesView(rows);
    expect(view.snapshot('account:b')).toBeUndefined();
    view.seal();
    expect(seen.closed).toBe(1);
  });
});
