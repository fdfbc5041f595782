import { describe, expect, it } from 'vitest';
import type { Store } from '../../store/store.js';
import { storeAvailable, storeUnavailable, STORE_RETRY_AFTER_SECONDS } from './store-available.js';

/** A store that says whether it can take writes, as the SQLite store does. */
const storeSaying = (reason: () => string | undefined) => ({ unavailable: reason }) as Pick<Store, 'unavailable'> as Store;

describe('storeAvailable step', () => {
  it('is left out of the pipeline for a store that never refuses (memory)', () => {
    expect(storeAvailable({ store: {} as Store })).toBeUndefined();
  });

  it('passes while the store can write, refuses with 503 store-unavailable and Retry-After while it cannot', () => {
    let reason: string | undefined;
    const step = storeAvailable({ store: storeSaying(() => reason) })!;
    expect(step()).toBeUndefined();
    reason = 'the disk is full';
    const problem = step()!;
    expect(problem).toMatchObject({ slug: 'store-unavailable', status: 503 });
    expect(problem.init.headers).toEqual({ 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) });
    expect(problem.message).toBe(`The mock's store cannot be used (the disk is full); nothing was changed. Retry in ${STORE_RETRY_AFTER_SECONDS} s.`);
    reason = undefined;
    expect(step()).toBeUndefined();
  });

  it('says when the outcome of a commit is unknown', () => {
    expect(storeUnavailable('the connection dropped mid-commit', 'it may not have been saved').message).toContain('; it may not have been saved.');
  });
});
