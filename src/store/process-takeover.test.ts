import { afterEach, describe, expect, it } from 'vitest';
import { BEAT_RETRIES, watchAbandonedWork } from './process-takeover.js';
import { OUTSIDE_LOCK_CONFLICT, StoreUnavailableError, type Scope } from './store.js';

/**
 * A process's heartbeat against a store whose first `failures` beats fail with `error`: how many
 * beats it made at once, and what it reported.
 */
async function beatsAgainst(failures: number, error: () => Error): Promise<{ attempts: number; reported: string[] }> {
  let attempts = 0;
  const reported: string[] = [];
  const values = new Map<string, unknown>();
  const system = { values } as unknown as Scope;
  const transaction = (work: () => void) => {
    attempts++;
    if (attempts <= failures) return Promise.reject(error());
    work();
    return Promise.resolve();
  };
  stops.push(watchAbandonedWork({ me: 1, system: () => system, transaction }, { records: () => ({ values: () => [], update: () => {} }), unfinished: () => false, adopt: () => {}, onError: (e) => reported.push(e.message) }));
  // The beats made at once settle within a few turns of the event loop; the next is a second away.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { attempts, reported };
}

const stops: (() => void)[] = [];
afterEach(() => stops.splice(0).forEach((stop) => stop()));

const lostRace = () => new StoreUnavailableError(OUTSIDE_LOCK_CONFLICT);
const away = () => new StoreUnavailableError('the store is unavailable: connect ECONNREFUSED 127.0.0.1:5432');

describe('a heartbeat that fails', () => {
  it('is made again at once while it loses races to other processes, and lands unreported', async () => {
    expect(await beatsAgainst(BEAT_RETRIES, lostRace)).toEqual({ attempts: BEAT_RETRIES + 1, reported: [] });
  });

  it('is reported when it loses every race it is given', async () => {
    expect(await beatsAgainst(Infinity, lostRace)).toEqual({ attempts: BEAT_RETRIES + 1, reported: [OUTSIDE_LOCK_CONFLICT] });
  });

  it('is made again once, then reported, when the store is away', async () => {
    const { attempts, reported } = await beatsAgainst(Infinity, away);
    expect(attempts).toBe(2);
    expect(reported).toEqual([away().message]);
  });
});
