import { describe, expect, it } from 'vitest';
import { storeUnavailable, STORE_RETRY_AFTER_SECONDS } from './store-available.js';

// The refusal itself (a store that cannot take writes, a failed commit) is the unit of work's:
// src/app/steps/unit-of-work.test.ts. Here: the one problem every store answers with.
describe('storeUnavailable', () => {
  it('is a 503 store-unavailable with Retry-After, saying why and that nothing changed', () => {
    const problem = storeUnavailable('the disk is full');
    expect(problem).toMatchObject({ slug: 'store-unavailable', status: 503 });
    expect(problem.init.headers).toEqual({ 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) });
    expect(problem.message).toBe(`The mock's store cannot be used (the disk is full); nothing was changed. Retry in ${STORE_RETRY_AFTER_SECONDS} s.`);
  });

  it('says when the outcome of a commit is unknown', () => {
    expect(storeUnavailable('the connection dropped mid-commit', 'it may not have been saved').message).toContain('; it may not have been saved.');
  });
});
