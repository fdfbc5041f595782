import type { SharedFeed } from '../store/store.js';
import { createJournal, perSecondBudget, type Journal, type JournalEntry } from './journal.js';

/**
 * Successful requests the processes of a store share per second at most, together (each its
 * share: this over the processes heard from lately); failed ones are always shared. At a
 * person's pace every request goes round; under a load test the others see all its failures and
 * a sample of the rest (writing every entry to the database halved a process's throughput). With
 * this budget per process, every process read what all the others shared, which grew with the
 * square of their number: four processes read 600 entries a second each (docs/scaling.md).
 */
export const SHARED_SUCCESSES_PER_SECOND = 200;

/** What goes round the feed: an entry without this process's sequence number. */
type FedEntry = Omit<JournalEntry, 'seq'>;

/**
 * The journal of a mock whose store may be shared by other processes: the traffic of every
 * process, each entry naming the process that served it. An entry recorded here is in this
 * journal at once (with its exchange) and published on the store's feed; entries other processes
 * publish arrive from the feed (within ~100 ms) without their exchanges, which stay with the
 * process that served them. Clearing clears every process's journal. Each process's own journal
 * has all of its entries; what it shares is every failure and its share of
 * SHARED_SUCCESSES_PER_SECOND successes (`SharedFeed.sharers`). A store one process owns gives a
 * feed nobody else reads (`origin` absent): entries then name no process, and publishing costs
 * nothing.
 *
 * @example const journal = createSharedJournal({ capacity: 1000, feed: store.feed('journal', 1000) });
 */
export function createSharedJournal(options: { capacity?: number; feed: SharedFeed<FedEntry>; processNumber?: number }): Journal {
  const journal = createJournal({ capacity: options.capacity });
  const { feed } = options;
  const processNumber = options.processNumber ?? feed.origin;
  const successes = perSecondBudget(() => Math.ceil(SHARED_SUCCESSES_PER_SECOND / Math.max(1, feed.sharers?.() ?? 1)));
  feed.subscribe(
    (items) => {
      for (const item of items) if (item.process !== processNumber) journal.record(item);
    },
    (accountId) => void journal.clear(accountId),
  );
  return {
    get capacity() {
      return journal.capacity;
    },
    get size() {
      return journal.size;
    },
    record(input, exchange) {
      // Alone on the store (no process number): nothing to stamp, nobody to tell, no copy of the entry.
      if (processNumber === undefined) return journal.record(input, exchange);
      // What each entry of this process carries: its number, as there are others to tell apart.
      const entry = journal.record({ ...input, process: processNumber }, exchange);
      if (entry.status === undefined || entry.status >= 400 || successes.take()) {
        const { seq: _seq, ...fed } = entry;
        feed.publish(fed, entry.accountId);
      }
      return entry;
    },
    get: (seq) => journal.get(seq),
    subscribe: (listener) => journal.subscribe(listener),
    find: (filter) => journal.find(filter),
    clear(accountId) {
      feed.clear(accountId);
      return journal.clear(accountId);
    },
  };
}
