import { describe, expect, it } from 'vitest';
import type { RunningMock } from '../../../src/server/start-mock.js';
import { createHarness, newAccount } from '../../support/harness.js';
import { ADDRESS, call, liveAccount, liveMockWithFreshAccount, startLiveMock, type LiveAccount } from '../../support/live-mock.js';
import { waitUntil } from '../../support/webhook-receiver.js';
import { loadContract } from '../../../src/contract/load-contract.js';

/**
 * The ready scenarios that act on requests (scenarios/*.yaml), each proved through real HTTP
 * against a mock on a real socket, doing what its header comment says.
 */
let mock: RunningMock;
let account: LiveAccount;
liveMockWithFreshAccount((live) => ({ mock, account } = live));

const listAddresses = (auth = account.auth, headers: Record<string, string> = {}) => call(mock, 'GET', '/v1/addresses', { auth, headers });

describe('rate-limit-burst', () => {
  it('cuts a burst off with 429 + consistent Retry-After/X-RateLimit-*, for the scoped account only, and recovers after the window', async () => {
    mock.scenarios.activate('rate-limit-burst', { accountId: account.accountId, params: { limit: 3, window: 'PT10S' } });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await listAddresses();
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(res.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const limited = await listAddresses();
    expect(limited.status).toBe(429);
    expect(limited.body.type).toBe('https://shipmock.dev/problems/rate-limited');
    expect(limited.headers.get('retry-after')).toBe('10');
    expect(limited.headers.get('x-ratelimit-reset')).toBe('10');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');

    const other = await liveAccount(mock);
    const unaffected = await listAddresses(other.auth);
    expect(unaffected.status).toBe(200);
    expect(unaffected.headers.get('x-ratelimit-limit')).toBe('6000');

    mock.clock.advance('PT10S');
    const recovered = await listAddresses();
    expect(recovered.status).toBe(200);
    expect(recovered.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(mock.journal.retryAfterRespected({ accountId: account.accountId })).toMatchObject({ ok: true, checked: 1 });
  });

  it('lets the journal show a client that retried too early', async () => {
    mock.scenarios.activate('rate-limit-burst', { accountId: account.accountId, params: { limit: 1, window: 'PT30S' } });
    expect((await listAddresses()).status).toBe(200);
    expect((await listAddresses()).status).toBe(429);
    mock.clock.advance('PT5S');
    expect((await listAddresses()).status).toBe(429);
    const report = mock.journal.retryAfterRespected({ accountId: account.accountId });
    expect(report.ok).toBe(false);
    expect(report.violations[0]).toMatchObject({ waitedMs: 5000, requiredMs: 30_000 });
    expect(() => mock.journal.assertRetryAfterHonoured({ accountId: account.accountId })).toThrow(/retried before Retry-After/);
  });
});

describe('token-expiry-mid-flow', () => {
  it('expires the token in use after N requests; the same token stays refused, a renewed one works', async () => {
    mock.scenarios.activate('token-expiry-mid-flow', { accountId: account.accountId, params: { after: 2 } });
    expect((await listAddresses()).status).toBe(200);
    expect((await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS })).status).toBe(201);

    const expired = await listAddresses();
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ type: 'https://shipmock.dev/problems/invalid-token', detail: expect.stringMatching(/token expired at/) });
    expect((await listAddresses()).status).toBe(401);

    const renewed = await account.renew();
    const after = await listAddresses(renewed);
    expect(after.status).toBe(200);
    expect(after.body.items).toHaveLength(1);
    expect((await listAddresses(renewed)).status).toBe(200);
    expect(mock.scenarios.list().find((s) => s.name === 'token-expiry-mid-flow')?.hits).toBe(1);
  });

  it('leaves other accounts alone', async () => {
    const other = await liveAccount(mock);
    mock.scenarios.activate('token-expiry-mid-flow', { accountId: account.accountId, params: { after: 0 } });
    expect((await listAddresses()).status).toBe(401);
    expect((await listAddresses(other.auth)).status).toBe(200);
  });
});

describe('flaky-network', () => {
  async function outcomes(target: RunningMock, accountId: string, auth: string): Promise<string[]> {
    target.scenarios.activate('flaky-network', { accountId, params: { probability: 0.5 } });
    const out: string[] = [];
    for (let i = 0; i < 16; i++) {
      try {
        out.push(String((await call(target, 'GET', '/v1/addresses', { auth })).status));
      } catch {
        out.push('reset');
      }
    }
    return out;
  }

  it('resets connections at random, without handling them, and the same seed drops the same requests', async () => {
    const first = await outcomes(mock, account.accountId, account.auth);
    expect(first).toContain('reset');
    expect(first).toContain('200');
    expect(first.every((o) => o === '200' || o === 'reset')).toBe(true);
    const dropped = mock.journal.find({ accountId: account.accountId, path: '/v1/addresses' }).filter((e) => e.outcome === 'reset');
    expect(dropped).toHaveLength(first.filter((o) => o === 'reset').length);
    expect(dropped.every((e) => e.status === undefined && e.scenarios?.[0] === 'flaky-network/drop')).toBe(true);

    const twin = await startLiveMock();
    try {
      const twinAccount = await liveAccount(twin);
      expect(twinAccount.accountId).toBe(account.accountId);
      expect(await outcomes(twin, twinAccount.accountId, twinAccount.auth)).toEqual(first);
    } finally {
      await twin.close();
    }
  });

  it('changes nothing for a dropped write', async () => {
    mock.scenarios.activate('flaky-network', { accountId: account.accountId, params: { probability: 1 } });
    await expect(call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS })).rejects.toThrow();
    mock.scenarios.deactivate('flaky-network');
    expect((await listAddresses()).body.items).toEqual([]);
  });
});

describe('inline effects', () => {
  it('reset: after handles the request, then drops the answer (the change happened, the client never hears)', async () => {
    mock.scenarios.activate({ name: 'lost-answers', rules: [{ match: { method: 'POST', path: '/v1/addresses' }, when: { times: 1 }, effect: { reset: 'after' } }] }, { accountId: account.accountId });
    await expect(call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS })).rejects.toThrow();
    expect((await listAddresses()).body.items).toHaveLength(1);
    const [entry] = mock.journal.find({ accountId: account.accountId, method: 'POST', path: '/v1/addresses' });
    expect(entry).toMatchObject({ outcome: 'reset', operationId: 'createAddress', scenarios: ['lost-answers/rule 0'] });
    expect(entry.status).toBeUndefined();
  });

  it('matches body fields after validation: only addresses whose city matches the glob are refused', async () => {
    mock.scenarios.activate(
      { name: 'bad-orders', rules: [{ match: { operationId: 'createAddress', body: { city: 'Ham*' } }, effect: { respond: { status: 422, problem: 'rule-violation', detail: 'no Hamburg today' } } }] },
      { accountId: account.accountId },
    );
    expect((await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS })).status).toBe(201);
    const refused = await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: { ...ADDRESS, city: 'Hamburg' } });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ type: 'https://shipmock.dev/problems/rule-violation', title: 'Unprocessable content', detail: 'no Hamburg today' });
    expect((await listAddresses()).body.items).toHaveLength(1);
  });
});

describe('validation-strict', () => {
  it('echoes the request violations in X-Shipmock-Violations, [] when clean, only where asked', async () => {
    const strict = { 'X-Shipmock-Scenario': 'validation-strict' };
    const clean = await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS, headers: strict });
    expect(clean.status).toBe(201);
    expect(JSON.parse(clean.headers.get('x-shipmock-violations')!)).toEqual([]);
    // A browser app under test may read it (CORS).
    expect(clean.headers.get('access-control-expose-headers')).toContain('X-Shipmock-Violations');

    const bad = await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: { ...ADDRESS, countryCode: 'Germany', extra: 1 }, headers: strict });
    expect(bad.status).toBe(400);
    const echoed = JSON.parse(bad.headers.get('x-shipmock-violations')!);
    expect(echoed).toEqual(bad.body.properties.violations.map((v: object) => ({ in: 'request', ...v })));
    expect(echoed.map((v: { field: string }) => v.field)).toEqual(expect.arrayContaining(['body/extra', 'body/countryCode']));

    const plain = await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: { ...ADDRESS, extra: 1 } });
    expect(plain.status).toBe(400);
    expect(plain.headers.get('x-shipmock-violations')).toBeNull();
  });
});

describe('validation-strict on answers', () => {
  it('turns an answer that breaks the contract into a 500 and names the violation, even with response validation off', async () => {
    const document = structuredClone(loadContract().document);
    const media = document.paths['/v1/addresses/{address-id}'].get.responses['200'].content['application/json'];
    media.schema = { type: 'object', required: ['nonexistent'], properties: { nonexistent: { type: 'string' } } };
    delete media.example;
    const lax = createHarness({ contract: document, responseValidation: 'off' });
    const account = await newAccount(lax);
    const id = (await lax.http.post('/v1/addresses').set('Authorization', account.auth).send(ADDRESS)).body.id;
    expect((await lax.http.get(`/v1/addresses/${id}`).set('Authorization', account.auth)).status).toBe(200);
    const strict = await lax.http.get(`/v1/addresses/${id}`).set('Authorization', account.auth).set('X-Shipmock-Scenario', 'validation-strict');
    expect(strict.status).toBe(500);
    expect(strict.body.type).toBe('https://shipmock.dev/problems/response-validation-failed');
    expect(JSON.parse(strict.headers['x-shipmock-violations'])).toEqual([{ in: 'response', field: 'body/nonexistent', message: 'is required' }]);
  });
});

describe('fail-twice-then-succeed', () => {
  it('answers 503 twice (nothing stored, Retry-After, rate-limit headers), then lets the request through', async () => {
    const header = { 'X-Shipmock-Scenario': 'fail-twice-then-succeed' };
    for (let i = 0; i < 2; i++) {
      const res = await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS, headers: header });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ type: 'https://shipmock.dev/problems/internal-error', title: 'Service unavailable', status: 503 });
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(res.headers.get('x-shipmock-scenario-hit')).toBe('fail-twice-then-succeed/outage');
    }
    expect((await listAddresses()).body.items).toEqual([]);
    expect(mock.journal.find({ operationId: 'createAddress', status: 503 })).toEqual([
      expect.objectContaining({ problem: 'internal-error', accountId: account.accountId, retryAfter: 1, scenarios: ['fail-twice-then-succeed/outage'] }),
      expect.objectContaining({ problem: 'internal-error' }),
    ]);
    expect((await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS, headers: header })).status).toBe(201);
    expect((await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS, headers: header })).status).toBe(201);
    expect((await listAddresses()).body.items).toHaveLength(2);
  });

  it('does nothing to requests without the header', async () => {
    expect((await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS })).status).toBe(201);
  });

  it('takes names only in the header, never file paths', async () => {
    for (const name of ['../package.json', '/etc/hostname', 'scenarios/rate-limit-burst.yaml']) {
      const res = await listAddresses(account.auth, { 'X-Shipmock-Scenario': name });
      expect(res.status, name).toBe(400);
      expect(res.body.detail).toMatch(/is not a scenario name/);
      expect(res.body.detail).not.toMatch(/devDependencies|YAML/);
    }
  });

  it('refuses an unknown scenario name in the header with a 400 naming the header', async () => {
    const res = await listAddresses(account.auth, { 'X-Shipmock-Scenario': 'no-such-scenario' });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toEqual([{ field: 'header/x-shipmock-scenario', message: 'names no usable scenario (no-such-scenario)' }]);
    expect(res.headers.get('x-ratelimit-limit')).toBe('6000');
  });
});

describe('slow-responses', () => {
  it('delays answers by the drawn latency (real time)', async () => {
    mock.scenarios.activate('slow-responses', { accountId: account.accountId, params: { mean: 250, stddev: 0 } });
    const started = performance.now();
    expect((await listAddresses()).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(245);
    const [entry] = mock.journal.find({ accountId: account.accountId, path: '/v1/addresses', limit: 1 });
    expect(entry.latencyMs).toBeGreaterThanOrEqual(245);
  });
});

describe('truncated-responses', () => {
  it('cuts a GET answer off mid-body (the client sees a failed read), the journal says truncated', async () => {
    mock.scenarios.activate('truncated-responses', { accountId: account.accountId, params: { every: 1 } });
    const res = await fetch(`${mock.url}/v1/addresses`, { headers: { Authorization: account.auth } });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    // The journal records the request when the server is done with its connection.
    await waitUntil(() => mock.journal.find({ accountId: account.accountId, path: '/v1/addresses', limit: 1 }).length > 0, 2_000, 'the journal entry');
    const [entry] = mock.journal.find({ accountId: account.accountId, path: '/v1/addresses', limit: 1 });
    expect(entry.outcome).toBe('truncated');
  });

  it('with mode malformed sends a complete body that is not JSON; writes are untouched', async () => {
    mock.scenarios.activate('truncated-responses', { accountId: account.accountId, params: { every: 2, mode: 'malformed' } });
    expect((await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS })).status).toBe(201);
    const first = await listAddresses();
    expect(first.body.items).toHaveLength(1);
    const res = await fetch(`${mock.url}/v1/addresses`, { headers: { Authorization: account.auth } });
    const text = await res.text();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(() => JSON.parse(text)).toThrow();
  });
});
