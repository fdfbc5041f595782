import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import type { BatchStatsSnapshot } from '../../src/store/lock-stats.js';
import { call, liveAccount, startLiveMock } from '../support/live-mock.js';

/**
 * GET /__admin/store/batches: the shared store's batch counters the bench reads (issue 27,
 * docs/scaling.md). Answers are held to contract/admin.yaml (responseValidation 'error').
 */
const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
let mock: RunningMock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const batches = async (running: RunningMock) => {
  const answer = await call(running, 'GET', '/__admin/store/batches');
  expect(answer.status).toBe(200);
  return answer.body as { shared: boolean } & BatchStatsSnapshot;
};

describe('GET /__admin/store/batches', () => {
  it('answers shared: false and zeros for the in-memory store', async () => {
    mock = await startLiveMock();
    await liveAccount(mock);
    expect(await batches(mock)).toEqual({ shared: false, batches: 0, byLock: { wide: 0, account: 0, process: 0 }, members: 0, lockWaitMs: 0, lockHoldMs: 0, serialMs: 0, conflicts: 0 });
  });

  it('counts the batches and their members of a shared store, and every request is one member', async () => {
    mock = await startLiveMock({ data: join(mkdtempSync(join(tmpdir(), 'shipmock-batches-')), 'shared.db'), sharedData: true });
    const account = await liveAccount(mock);
    const before = await batches(mock);
    expect(before.shared).toBe(true);
    expect(before.batches).toBeGreaterThan(0);
    // Which process counted them (each counts its own; a bench sums them over the processes).
    expect(Number.isInteger(before.process) && before.process >= 1).toBe(true);
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(mock!, 'POST', '/v1/addresses', { auth: account.auth, body: berlin })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    const after = await batches(mock);
    // The 20 POSTs and the first GET of the counters (it ran in a batch too); background work may add more.
    expect(after.members - before.members).toBeGreaterThanOrEqual(21);
    expect(after.batches).toBeGreaterThan(before.batches);
    expect(after.lockHoldMs).toBeGreaterThanOrEqual(before.lockHoldMs);
    expect(after.lockWaitMs).toBeGreaterThanOrEqual(before.lockWaitMs);
    // SQLite has one write lock per file: every batch of the shared layout is wide, all of its time serial.
    expect(after.byLock.wide - before.byLock.wide).toBe(after.batches - before.batches);
    expect(after.byLock.account).toBe(0);
    expect(after.serialMs).toBeGreaterThanOrEqual(after.lockHoldMs);
    expect(after.process).toBe(before.process);
  });
});
