import { isPostgresUrl } from '../store/data-location.js';
import type { Store } from '../store/store.js';
import type { ClaimedDataFile } from '../store/data-file.js';

/**
 * --data: the durable store of a mock (src/store/sqlite-store.ts, loaded only when asked for).
 * The store keeps every durable part of the state registry, the token signing secret among them
 * (runtime.ts: it is as secret as the client secrets already there, and the file is 0600), so
 * tokens issued before a restart stay valid.
 *
 * @example const { store } = await openDataStore('/var/lib/shipmock/mock.db');
 */
export async function openDataStore(path: string, options: { onError?: (error: Error) => void; shared?: boolean; cacheSize?: number } = {}): Promise<{ store: Store }> {
  if (isPostgresUrl(path)) {
    // A database several processes share (src/store/postgres-store.ts).
    const { openPostgresStore } = await import('../store/postgres-store.js');
    return openPostgresStore(path, options);
  }
  // The workers of one host share a SQLite file in the shared layout; a file in that layout is
  // opened that way by any process (src/store/sqlite-shared-store.ts). Which layout a file has is
  // read only once it is locked (src/store/data-file.ts): nothing is opened before that.
  const openShared = (claim?: ClaimedDataFile) => import('../store/sqlite-shared-store.js').then((m) => m.openSharedSqliteStore(path, { ...options, claim }));
  if (options.shared) return openShared();
  const { openSqliteStore, SharedLayoutError, ClaimContendedError } = await import('../store/sqlite-store.js');
  const { claimDataFile } = await import('../store/data-file.js');
  let store: Store | undefined;
  // Two mocks starting on one new file at the same moment both hold it shared: each lets go and
  // tries again shortly, so one of them gets it (and the other is refused, naming it).
  for (let attempt = 0; !store; attempt++) {
    const claim = claimDataFile(path, 'one-process');
    try {
      store = openSqliteStore(path, { onError: options.onError, claim, cacheSize: options.cacheSize });
    } catch (error) {
      if (error instanceof SharedLayoutError) return openShared(claim);
      if (!(error instanceof ClaimContendedError) || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
  }
  return { store };
}
