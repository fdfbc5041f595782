import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import type { ChildMock } from './child-mock.js';
import { CRASH_SEED, crashRun, KILLS } from './crash-run.js';

/** Issue 13: the crash test (crash-run.ts) on a SQLite --data file. */
describe('durable state survives kill -9 (SQLite --data)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipmock-crash-'));
  let mock: ChildMock | undefined;
  afterAll(async () => {
    await mock?.kill();
  });

  it(`loses no acknowledged write over ${KILLS} kill points (seed ${CRASH_SEED})`, async () => {
    await crashRun(join(dir, 'crash.db'), (started) => (mock = started));
  }, 90_000);
});
