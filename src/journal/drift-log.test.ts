import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logging/logger.js';
import { driftLogOf } from '../server/drift-log-of.js';
import { startMock } from '../server/start-mock.js';
import { createStore } from '../store/store.js';
import { createDriftLog, type DriftRecord } from './drift-log.js';

const entry = (path: string, differences: DriftRecord['differences'] = []): Omit<DriftRecord, 'id' | 'at'> => ({ method: 'GET', path, operationId: 'getAddress', upstreamStatus: 200, mockStatus: 200, differences });
const silent = createLogger({ level: 'silent', format: 'json' });

describe('the drift log', () => {
  it('is bounded: the oldest records go first, and the capacity holds after a reset', () => {
    const store = createStore();
    const drift = createDriftLog({ scope: () => store.global, now: () => '2026-01-01T00:00:00.000Z', capacity: 3 });
    for (let i = 1; i <= 5; i++) drift.record(entry(`/v1/addresses/${i}`));
    const page = drift.find({ limit: 10 });
    expect(page.items.map((r) => r.path)).toEqual(['/v1/addresses/5', '/v1/addresses/4', '/v1/addresses/3']);
    expect(page).toMatchObject({ capacity: 3, size: 3 });
    store.reset();
    expect(drift.find({ limit: 10 }).items).toEqual([]);
    for (let i = 1; i <= 4; i++) drift.record(entry(`/v1/addresses/${i}`));
    expect(drift.size).toBe(3);
    // A reader without a capacity of its own reports the writer's.
    expect(createDriftLog({ scope: () => store.global, now: () => '' }).capacity).toBe(3);
  });

  it('counts per operation and field over the matching records, indexes folded to [*]', () => {
    const store = createStore();
    const drift = createDriftLog({ scope: () => store.global, now: () => '2026-01-01T00:00:00.000Z' });
    drift.record(entry('/v1/addresses?limit=5', [{ kind: 'body', field: '$.items[0].city', issue: 'value', upstream: '"A"', mock: '"B"' }]));
    drift.record(entry('/v1/addresses?limit=5', [{ kind: 'body', field: '$.items[3].city', issue: 'value', upstream: '"A"', mock: '"B"' }]));
    drift.record(entry('/v1/addresses/1'));
    const all = drift.find({ limit: 10 });
    expect(all.summary).toEqual({
      compared: 3,
      drifted: 2,
      byOperation: { getAddress: { requests: 3, drifted: 2, fields: { '$.items[*].city': 2 } } },
      byField: [{ field: '$.items[*].city', kind: 'body', count: 2 }],
    });
    expect(drift.find({ limit: 10, field: '$.items[*].city' }).items).toHaveLength(2);
    expect(drift.find({ limit: 10, field: '$.items[3].city' }).items).toHaveLength(1);
    expect(drift.find({ limit: 10, drifted: false }).items.map((r) => r.path)).toEqual(['/v1/addresses/1']);
  });

  it('outlives a restart of a mock on a --data file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-drift-'));
    const data = join(dir, 'mock.db');
    try {
      const first = await startMock({ port: 0, data, logger: silent });
      const drift = driftLogOf(first, 50);
      drift.record(entry('/v1/addresses/1', [{ kind: 'status', field: 'status', issue: 'value', upstream: '200', mock: '404' }]));
      await first.close();
      const second = await startMock({ port: 0, data, logger: silent });
      try {
        const page = (await (await fetch(`${second.url}/__admin/drift`)).json()) as { capacity: number; items: DriftRecord[] };
        expect(page.capacity).toBe(50);
        expect(page.items.map((r) => r.differences[0]?.field)).toEqual(['status']);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
