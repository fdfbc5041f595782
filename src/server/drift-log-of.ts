import { createDriftLog, type DriftLog } from '../journal/drift-log.js';
import { internalsOf, type RunningMock } from './start-mock.js';

/**
 * The drift log of a running mock (its store's global scope, its clock), for `shipmock compare`
 * and tests: writes ask the store for a commit, so a `--data` mock keeps them.
 * @example const compare = await startCompareProxy({ upstream, mock: { url: mock.url, credentials: mock.credentials }, drift: driftLogOf(mock) });
 */
export function driftLogOf(mock: RunningMock, capacity?: number): DriftLog {
  // The one place compare reaches behind the mock's handles.
  const { runtime } = internalsOf(mock);
  return createDriftLog({ scope: () => runtime.store.global, now: () => runtime.clock.nowIso(), capacity, touch: () => runtime.store.touch() });
}
