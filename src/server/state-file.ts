import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { MockState } from '../admin/state.js';
import { isPostgresUrl } from '../store/data-location.js';
import type { Store } from '../store/store.js';
import type { ClaimedDataFile } from '../store/data-file.js';

/**
 * --data: the durable store of a mock (src/store/sqlite-store.ts, loaded only when asked for).
 * The token signing secret is kept in the file beside the state (it is as secret as the client
 * secrets already there, and the file is 0600), so tokens issued before a restart stay valid;
 * --token-secret, when given, wins and replaces the saved one.
 *
 * @example const { store, tokenSecret } = await openDataFile('/var/lib/shipmock/mock.db');
 */
export async function openDataFile(path: string, options: { tokenSecret?: string; onError?: (error: Error) => void; shared?: boolean } = {}): Promise<{ store: Store; tokenSecret: string }> {
  if (isPostgresUrl(path)) {
    // A database several processes share; the token secret is kept in it (src/store/postgres-store.ts).
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
      store = openSqliteStore(path, { onError: options.onError, claim });
    } catch (error) {
      if (error instanceof SharedLayoutError) return openShared(claim);
      if (!(error instanceof ClaimContendedError) || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
  }
  let tokenSecret = options.tokenSecret ?? randomBytes(32).toString('hex');
  store.part('token-secret', {
    snapshot: () => tokenSecret,
    restore(saved) {
      if (options.tokenSecret === undefined && typeof saved === 'string') tokenSecret = saved;
    },
  });
  store.commit();
  return { store, tokenSecret };
}

/**
 * --state-file: the state a mock loads at start (when the file exists) and saves on shutdown,
 * as readable JSON (GET /__admin/state plus the token secret). Not crash-safe: a killed process
 * saves nothing; --data is the durable store.
 * Next to the state the file keeps the token signing secret (never part of GET /__admin/state),
 * so tokens issued before a restart stay valid after it.
 */
export interface StateFile {
  state?: MockState;
  tokenSecret: string;
}

export function readStateFile(path: string, tokenSecret?: string): StateFile {
  if (!existsSync(path)) return { tokenSecret: tokenSecret ?? randomBytes(32).toString('hex') };
  let parsed: MockState & { tokenSecret?: string };
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`--state-file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const { tokenSecret: saved, ...state } = parsed;
  return { state: state as MockState, tokenSecret: tokenSecret ?? saved ?? randomBytes(32).toString('hex') };
}

/**
 * Writes atomically (temp file, then rename): a crash mid-write never leaves half a state.
 * Mode 0600: the file holds client secrets, webhook secrets and the token secret.
 */
export function writeStateFile(path: string, state: MockState, tokenSecret: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ ...state, tokenSecret }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}
