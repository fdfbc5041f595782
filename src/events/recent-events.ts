import type { StateRegistry } from '../store/state-registry.js';
import type { EventBus, EventEnvelope } from './event-bus.js';

/** Events the inspector can show: the most recent ones, across accounts (a ring, not a log). */
export const RECENT_EVENTS = 500;

/** The newest events published on the bus, for the inspector's views of a booking (admin/inspection.ts). */
export interface RecentEvents {
  /** Newest first, at most `limit`, of one account and mentioning a text (a booking id) when asked. */
  find(filter: { accountId?: string; mentions?: string; limit: number }): EventEnvelope[];
}

/**
 * Keeps the last RECENT_EVENTS events from the moment the instance exists. Transient and of this
 * process; reset with the rest (a full reset all, an account's reset that account's).
 *
 * @example const recent = createRecentEvents(events, store.parts); recent.find({ accountId, limit: 20 })
 */
export function createRecentEvents(events: EventBus, parts: StateRegistry, afterCommit: (callback: () => void) => void = (callback) => callback()): RecentEvents {
  const recent: EventEnvelope[] = [];
  // Kept once the unit that published it is committed: an event of a unit that runs again (a
  // shared store's read) or is refused never happened.
  events.subscribe((event) =>
    afterCommit(() => {
      recent.push(event);
      if (recent.length > RECENT_EVENTS) recent.shift();
    }),
  );
  parts.register({
    name: 'inspector-events',
    description: 'the newest published events, shown by the inspector',
    durable: false,
    storage: 'value',
    sharing: 'process',
    reset: 'per-account',
    snapshot: () => recent.slice(),
    clear(accountId) {
      const kept = accountId === undefined ? [] : recent.filter((event) => event.accountId !== accountId);
      recent.splice(0, recent.length, ...kept);
    },
  });
  return {
    find({ accountId, mentions, limit }) {
      const out: EventEnvelope[] = [];
      for (let i = recent.length - 1; i >= 0 && out.length < limit; i--) {
        const event = recent[i];
        if (accountId && event.accountId !== accountId) continue;
        if (mentions && !JSON.stringify(event.payload).includes(mentions)) continue;
        out.push(event);
      }
      return out.reverse();
    },
  };
}
