import { describe, expect, it } from 'vitest';
import { createDirtyWrites } from './dirty-writes.js';
import { createStore } from './store.js';

describe('dirty writes (what a durable store commits next)', () => {
  it('names the slots and values written, forgets those of a replaced scope, and ignores muted work', () => {
    let changes = 0;
    const dirty = createDirtyWrites(() => changes++);
    const memory = createStore(dirty.watcher);
    const addresses = memory.account('a').collection<{ id: string }>('addresses');
    addresses.insert({ id: 'x' });
    addresses.insert({ id: 'y' });
    addresses.update({ id: 'x' });
    memory.account('a').values.set('usage', 1);
    expect([...dirty.items.get('account:a')!.get('addresses')!]).toEqual([
      [1, 'x'],
      [2, 'y'],
    ]);
    expect([...dirty.values.get('account:a')!]).toEqual(['usage']);
    expect(changes).toBe(4);

    dirty.muted(() => memory.account('b').collection<{ id: string }>('parcels').insert({ id: 'p' }));
    expect(dirty.items.has('account:b')).toBe(false);

    memory.reset('a');
    expect(dirty.replaced).toEqual(new Set(['account:a']));
    expect(dirty.items.has('account:a')).toBe(false);
    expect(dirty.empty).toBe(false);
    dirty.clear();
    expect(dirty.empty).toBe(true);
  });
});
