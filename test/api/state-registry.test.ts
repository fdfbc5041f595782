import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { internalsOf, type RunningMock } from '../../src/server/start-mock.js';
import type { StatePart } from '../../src/store/state-registry.js';
import { call } from '../support/live-mock.js';
import { startLiveMock } from '../support/live-mock.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../support/postgres.js';
import { canonical, jsonOf, partsOf, stateWorkload, waitFor } from '../support/state-workload.js';

/**
 * Driven by the state registry (src/store/state-registry.ts), as the isolation test is driven by
 * the contract: every registered part is held to what it declares —
 *
 * - the workload leaves state in every part a reset clears (else the checks below prove nothing);
 * - exported parts: GET /__admin/state → PUT into a fresh mock gives each the same snapshot,
 *   and every part never exported starts as on a fresh mock;
 * - reset: a full reset brings every part a reset clears back to its value at start, and leaves
 *   the 'kept' ones as they were; an account's reset removes that account's share of each
 *   per-account part and leaves the other account's share, and leaves every other part alone;
 * - durable parts survive a real restart on a SQLite file;
 * - shared parts are seen by a second process on one PostgreSQL database.
 *
 * A part registered later is covered by all of this with no test code to add.
 */
const opened: RunningMock[] = [];
const folder = mkdtempSync(join(tmpdir(), 'shipmock-registry-'));
let cluster: ThrowawayPostgres | undefined;

afterAll(async () => {
  for (const mock of opened) await mock.close().catch(() => {});
  cluster?.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function started(options: Parameters<typeof startLiveMock>[0] = {}): Promise<RunningMock> {
  const mock = await startLiveMock(options);
  opened.push(mock);
  return mock;
}

async function closed(mock: RunningMock): Promise<void> {
  opened.splice(opened.indexOf(mock), 1);
  await mock.close();
}

const resettable = (part: StatePart) => part.reset !== 'kept';
/** The ids in `json` that `source` does not hold. */
const foreignIds = (json: string, source: string) => [...new Set(json.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [])].filter((id) => !source.includes(id));
/** How often `text` occurs in a part's snapshot (an account's share of it). */
const mentions = (part: StatePart, text: string) => jsonOf(part).split(text).length - 1;
/**
 * What a full reset restores, where it is not the whole snapshot: the seeded stream restarts,
 * its named streams run on (a company added at run time keeps its id, and a number handed out
 * from them is never handed out again).
 */
const afterFullReset: Record<string, (snapshot: any) => unknown> = { random: (snapshot) => snapshot.position };
const resetView = (part: StatePart) => canonical((afterFullReset[part.name] ?? ((s: unknown) => s))(part.snapshot()));

describe('every registered part keeps to its declaration', () => {
  it('is touched by the workload, round-trips an export, and is reset as it declares (whole and per account)', async () => {
    const mock = await started();
    const parts = partsOf(mock);
    const atStart = new Map([...parts].map(([name, part]) => [name, resetView(part)]));
    const a = await stateWorkload(mock, 'A');
    const b = await stateWorkload(mock, 'B');

    const untouched = [...parts.values()].filter((part) => resettable(part) && resetView(part) === atStart.get(part.name)).map((p) => p.name);
    expect(untouched, 'parts the workload left as they were (extend test/support/state-workload.ts)').toEqual([]);
    const withoutA = [...parts.values()].filter((part) => part.reset === 'per-account' && mentions(part, a.accountId) === 0).map((p) => p.name);
    expect(withoutA, 'per-account parts holding nothing of account A after its workload').toEqual([]);

    // Export → import into a fresh mock, through real HTTP.
    const exported = await call(mock, 'GET', '/__admin/state');
    expect(exported.status).toBe(200);
    const other = await started({ seed: 7 });
    const fresh = new Map([...partsOf(other)].map(([name, part]) => [name, jsonOf(part)]));
    const put = await call(other, 'PUT', '/__admin/state', { body: exported.body });
    expect(put.status).toBe(204);
    for (const [name, part] of partsOf(other)) {
      if (part.exported) expect(jsonOf(part), `${name} after export → import`).toBe(jsonOf(parts.get(name)!));
      // Never exported: it starts afresh, or holds only what the import re-derives from the imported state (tracker timers).
      else if (resettable(part) && jsonOf(part) !== fresh.get(name)) expect(foreignIds(jsonOf(part), exported.text), `${name} (never exported) after an import`).toEqual([]);
    }

    // An account's reset: A's share goes, B's stays, the other parts are left alone.
    const before = new Map([...parts].map(([name, part]) => [name, { json: jsonOf(part), a: mentions(part, a.accountId), b: mentions(part, b.accountId) }]));
    mock.reset(a.accountId);
    for (const [name, part] of parts) {
      const was = before.get(name)!;
      if (part.reset !== 'per-account') {
        expect(jsonOf(part), `${name} (${part.reset}) after an account's reset`).toBe(was.json);
        continue;
      }
      expect(mentions(part, a.accountId), `${name}: account A's share after its reset`).toBeLessThan(was.a);
      expect(mentions(part, b.accountId), `${name}: account B's share after A's reset`).toBe(was.b);
    }
    // The store keeps the Account itself (its record and owner index, README, State); its scope is gone.
    expect(internalsOf(mock).runtime.store.hasAccount(a.accountId)).toBe(false);
    expect(internalsOf(mock).runtime.store.hasAccount(b.accountId)).toBe(true);

    // A full reset: back to the start, except the parts no reset clears.
    const kept = new Map([...parts].map(([name, part]) => [name, jsonOf(part)]));
    mock.reset();
    for (const [name, part] of parts) {
      if (resettable(part)) expect(resetView(part), `${name} after a full reset`).toBe(atStart.get(name));
      else expect(jsonOf(part), `${name} (kept) after a full reset`).toBe(kept.get(name));
    }
  }, 120_000);

  it('mock.reset() empties the carrier call log (it survived resets before the registry)', async () => {
    const mock = await started();
    await stateWorkload(mock, 'C');
    const calls = () => mock.carriers.calls();
    expect(calls().some((c) => c.operation === 'BOOK')).toBe(true);
    mock.reset();
    expect(calls()).toEqual([]);
  }, 60_000);

  it('keeps every durable part across a real restart on a SQLite file', async () => {
    const data = join(folder, 'registry.db');
    const first = await started({ data });
    await stateWorkload(first, 'D');
    const durable = [...partsOf(first).values()].filter((part) => part.durable);
    // What the restart must give back: each durable part as it was when the mock stopped.
    const saved = new Map(durable.map((part) => [part.name, jsonOf(part)]));
    await closed(first);
    const second = await started({ data });
    const after = partsOf(second);
    for (const [name, json] of saved) expect(jsonOf(after.get(name)!), `${name} after a restart`).toBe(json);
  }, 60_000);

  it('shows every shared part of one process to a second process on one PostgreSQL database', async () => {
    cluster = await startThrowawayPostgres();
    const url = await cluster.createDatabase();
    const one = await started({ data: url });
    const two = await started({ data: url });
    const shared = [...partsOf(two).values()].filter((part) => part.sharing === 'shared');
    const atStart = new Map(shared.map((part) => [part.name, jsonOf(part)]));
    await stateWorkload(one, 'E');
    const ofOne = partsOf(one);
    for (const part of shared) {
      // Durable ones: the same value once the second process has pulled (an empty batch);
      // transient ones (journal, windows) travel their own way: something of the first arrives.
      await waitFor(
        async () => {
          await internalsOf(two).runtime.store.probe?.();
          return part.durable ? jsonOf(part) === jsonOf(ofOne.get(part.name)!) : jsonOf(part) !== atStart.get(part.name);
        },
        `${part.name} on the second process`,
      ).catch((error) => {
        throw new Error(`${(error as Error).message}\nfirst:  ${jsonOf(ofOne.get(part.name)!).slice(0, 3000)}\nsecond: ${jsonOf(part).slice(0, 3000)}`);
      });
    }
  }, 180_000);
});
