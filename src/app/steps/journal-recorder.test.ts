import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestState } from '../../http/request-state.js';
import { createJournal } from '../../journal/journal.js';
import { createLogger } from '../../logging/logger.js';
import { journalRecorder } from './journal-recorder.js';
import { requestId } from './request-id.js';

/**
 * The recorder on a tiny node:http server: request id, the recorder, then an answer that the
 * path chooses (`/v1/ok` 200, `/v1/slow-down` 429 with Retry-After, `/v1/cut` headers then a
 * dropped connection, anything else dropped before an answer).
 */
const journal = createJournal({ capacity: 10 });
const started = requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 });
const record = journalRecorder({ journal, now: () => Date.parse('2026-01-01T00:00:00Z') });
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    started(req, res, () => {});
    record(req, res, () => {});
    const state = requestState(req);
    if (state.pathname === '/v1/ok') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    if (state.pathname === '/v1/slow-down') {
      Object.assign(state, { rateLimitKey: 'account:a1', problem: 'https://shipmock.dev/problems/rate-limited', scenarioHits: ['burst/1'] });
      return void res.writeHead(429, { 'Retry-After': '7' }).end();
    }
    if (state.pathname === '/v1/cut') {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('{"half":');
      return void setImmediate(() => res.destroy());
    }
    res.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The journal entry of the next request to `path`, once its connection is done. */
async function entryOf(path: string, init: RequestInit = {}) {
  const before = journal.size;
  await fetch(`${base}${path}`, { ...init, headers: { Connection: 'close', ...init.headers } }).then((res) => res.arrayBuffer()).catch(() => undefined);
  const deadline = Date.now() + 5_000;
  while (journal.size === before) {
    if (Date.now() > deadline) throw new Error(`no journal entry for ${path}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return journal.find({ limit: 1 })[0];
}

describe('journalRecorder step', () => {
  it('records an answered request when its connection is done: method, path, query, status, arrival time', async () => {
    expect(await entryOf('/v1/ok?limit=2')).toMatchObject({ method: 'GET', path: '/v1/ok', query: 'limit=2', status: 200, outcome: 'completed', at: '2026-01-01T00:00:00.000Z', validation: 'not-checked' });
  });

  it('keeps the credential, the problem slug, Retry-After and the scenario hits', async () => {
    expect(await entryOf('/v1/slow-down')).toMatchObject({ status: 429, credential: 'account:a1', problem: 'rate-limited', retryAfter: 7, scenarios: ['burst/1'] });
  });

  it('tells a cut-off answer and a reset connection from a completed one', async () => {
    expect((await entryOf('/v1/cut')).outcome).toBe('truncated');
    const reset = await entryOf('/v1/reset');
    expect(reset.outcome).toBe('reset');
    expect(reset.status).toBeUndefined();
  });

  it('leaves the control plane and the mock pages out', async () => {
    const before = journal.size;
    await fetch(`${base}/__admin/health`).catch(() => undefined);
    await entryOf('/v1/ok');
    expect(journal.size).toBe(before + 1);
    expect(journal.find({ limit: 1 })[0].path).toBe('/v1/ok');
  });
});
