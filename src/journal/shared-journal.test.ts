import { describe, expect, it } from 'vitest';
import type { SharedFeed } from '../store/store.js';
import type { JournalEntry } from './journal.js';
import { createSharedJournal, SHARED_SUCCESSES_PER_SECOND } from './shared-journal.js';

type Fed = Omit<JournalEntry, 'seq'>;

/** A feed that goes round at once: what is published comes back to every subscriber. */
function loopbackFeed() {
  const subscribers: { onItems: (items: Fed[]) => void; onClear: (tag?: string) => void }[] = [];
  const cleared: (string | undefined)[] = [];
  const feed: SharedFeed<Fed> = {
    publish: (item) => subscribers.forEach((s) => s.onItems([item])),
    subscribe(onItems, onClear) {
      subscribers.push({ onItems, onClear });
      return () => {};
    },
    clear(tag) {
      cleared.push(tag);
      subscribers.forEach((s) => s.onClear(tag));
    },
  };
  return { feed, cleared };
}

const entry = (path: string, accountId?: string) => ({ requestId: path, at: '2026-03-02T08:00:00.000Z', method: 'GET', path, outcome: 'completed' as const, status: 200, latencyMs: 1, accountId });

describe('the journal of processes sharing a store', () => {
  it('shows what every process served, each entry naming its process', () => {
    const { feed } = loopbackFeed();
    const one = createSharedJournal({ processNumber: 1, feed });
    const two = createSharedJournal({ processNumber: 2, feed });
    one.record(entry('/v1/addresses', 'a'));
    two.record(entry('/v1/parcels', 'b'));
    for (const journal of [one, two]) {
      expect(journal.find().map((e) => [e.path, e.process])).toEqual([
        ['/v1/addresses', 1],
        ['/v1/parcels', 2],
      ]);
    }
    // Each process's own entry is recorded once (not again when the feed brings it back).
    expect(one.size).toBe(2);
    expect(two.get(two.find({ path: '/v1/addresses' })[0].seq)?.entry.process).toBe(1);
  });

  it('clears in every process, one account or all', () => {
    const { feed, cleared } = loopbackFeed();
    const one = createSharedJournal({ processNumber: 1, feed });
    const two = createSharedJournal({ processNumber: 2, feed });
    one.record(entry('/v1/addresses', 'a'));
    two.record(entry('/v1/parcels', 'b'));
    two.clear('a');
    expect(one.find().map((e) => e.accountId)).toEqual(['b']);
    expect(two.find().map((e) => e.accountId)).toEqual(['b']);
    one.clear();
    expect(two.size).toBe(0);
    expect(cleared).toEqual(['a', undefined]);
  });
});

describe('what a process shares of its journal', () => {
  it('every failed request, and successful ones up to the per-second budget; its own journal keeps all', () => {
    const published: Fed[] = [];
    const feed: SharedFeed<Fed> = { publish: (item) => published.push(item), subscribe: () => () => {}, clear: () => {} };
    const journal = createSharedJournal({ processNumber: 1, feed, capacity: 1000 });
    for (let i = 0; i < SHARED_SUCCESSES_PER_SECOND + 100; i++) journal.record(entry(`/v1/addresses/${i}`));
    for (let i = 0; i < 5; i++) journal.record({ ...entry('/v1/parcels'), status: 429 });
    expect(journal.size).toBe(SHARED_SUCCESSES_PER_SECOND + 105);
    expect(published.filter((e) => e.status === 429)).toHaveLength(5);
    // Within one second of real time (a second boundary may fall inside the loop: at most twice the budget).
    const successes = published.filter((e) => e.status === 200).length;
    expect(successes).toBeGreaterThanOrEqual(SHARED_SUCCESSES_PER_SECOND);
    expect(successes).toBeLessThan(SHARED_SUCCESSES_PER_SECOND + 100);
  });
});

describe('the successes processes sharing a store share', () => {
  it('are the budget over the processes heard from lately, together: a process shares its part', async () => {
    let sharers = 4;
    const published: Fed[] = [];
    const feed: SharedFeed<Fed> = { sharers: () => sharers, publish: (item) => published.push(item), subscribe: () => () => {}, clear: () => {} };
    const journal = createSharedJournal({ processNumber: 1, feed, capacity: 1000 });
    for (let i = 0; i < SHARED_SUCCESSES_PER_SECOND; i++) journal.record(entry(`/v1/addresses/${i}`));
    // Within one second of real time (a second boundary may fall inside the loop: at most twice the share).
    const share = SHARED_SUCCESSES_PER_SECOND / 4;
    expect(published.length).toBeGreaterThanOrEqual(share);
    expect(published.length).toBeLessThanOrEqual(2 * share);
    // Failures still all go round.
    for (let i = 0; i < 5; i++) journal.record({ ...entry('/v1/parcels'), status: 503 });
    expect(published.filter((e) => e.status === 503)).toHaveLength(5);
    // Alone again: the whole budget, from the next second.
    sharers = 1;
    published.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 1005 - (performance.now() % 1000)));
    for (let i = 0; i < SHARED_SUCCESSES_PER_SECOND + 50; i++) journal.record(entry(`/v1/parcels/${i}`));
    expect(published.length).toBeGreaterThanOrEqual(SHARED_SUCCESSES_PER_SECOND);
  });
});
