import { ProblemError } from '../../errors/problem.js';

/** Seconds a client is asked to wait when the store cannot be used (a SQLite store tries again every second). */
export const STORE_RETRY_AFTER_SECONDS = 1;

/**
 * The answer to a request that meets a store it cannot use (unit-of-work.ts): 503
 * `store-unavailable` with Retry-After, saying why and that nothing changed (or, when a commit's
 * outcome is unknown, that it may not have been saved). The same problem for every store.
 * @example throw storeUnavailable('the disk is full', 'nothing was changed');
 */
export function storeUnavailable(reason: string, outcome = 'nothing was changed'): ProblemError {
  return new ProblemError('store-unavailable', {
    detail: `The mock's store cannot be used (${reason}); ${outcome}. Retry in ${STORE_RETRY_AFTER_SECONDS} s.`,
    headers: { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
  });
}
