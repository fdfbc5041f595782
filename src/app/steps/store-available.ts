import { ProblemError } from '../../errors/problem.js';
import type { Store } from '../../store/store.js';

/** Seconds a client is asked to wait when the store cannot be used (a SQLite store tries again every second). */
export const STORE_RETRY_AFTER_SECONDS = 1;

/**
 * The answer to a request that meets a store it cannot use: 503 `store-unavailable` with
 * Retry-After, saying why and that nothing changed (or, when a commit's outcome is unknown,
 * that it may not have been saved). The same problem for the SQLite and the shared stores.
 * @example throw storeUnavailable('the disk is full', 'nothing was changed');
 */
export function storeUnavailable(reason: string, outcome = 'nothing was changed'): ProblemError {
  return new ProblemError('store-unavailable', {
    detail: `The mock's store cannot be used (${reason}); ${outcome}. Retry in ${STORE_RETRY_AFTER_SECONDS} s.`,
    headers: { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
  });
}

/**
 * With a store one process owns (SQLite): while its file cannot take writes (a full disk, a
 * file made read-only), a request is refused before any step reads or writes state, so the
 * store stays as committed; the store tries again by itself (sqlite-store.ts) and requests pass
 * once a write succeeds. `/__admin/health` is not refused: it says why (admin-router.ts).
 */
export function storeAvailable(options: { store: Store }): (() => ProblemError | undefined) | undefined {
  const { unavailable } = options.store;
  if (!unavailable) return undefined;
  return function storeAvailableStep() {
    const reason = unavailable();
    return reason === undefined ? undefined : storeUnavailable(reason);
  };
}
