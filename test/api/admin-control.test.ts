import type { Router } from 'express';
import { describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../src/admin/admin-router.js';
import { loadAdminContract } from '../../src/admin/admin-contract.js';
import { createControlPlane } from '../../src/admin/control-plane.js';
import { ADDRESS } from '../support/live-mock.js';
import { createHarness, newAccount, type Harness, harnessInternals } from '../support/harness.js';

/**
 * The control plane (/__admin) over HTTP. Every answer is also checked here against
 * contract/admin.yaml (the app checks too, in error mode: a violation would be a 500).
 */
const admin = loadAdminContract().gate;

function conforms(res: { status: number; headers: Record<string, string>; body: unknown; text?: string }, method: string, path: string): void {
  const match = admin.routes.match(method, path.split('?')[0]);
  expect(match.kind, `${method} ${path} in admin.yaml`).toBe('operation');
  if (match.kind !== 'operation') return;
  const type = String(res.headers['content-type'] ?? '').split(';')[0] || undefined;
  const body = type && type.endsWith('json') ? res.body : undefined;
  if (type === 'application/problem+json') {
    expect(admin.validators.validate('#/components/schemas/Problem', body)).toEqual([]);
    return;
  }
  expect(admin.validators.forOperation(match.operation.operationId).response(res.status, type, body), `${method} ${path} ${res.status}`).toEqual([]);
}

async function adminCall(h: Harness, method: 'get' | 'post' | 'put' | 'delete', path: string, body?: unknown) {
  const req = h.http[method](path);
  // A body-less POST must say it is meant (README, Control plane security).
  if (method === 'post' && body === undefined) req.set('X-Shipmock-Admin', '1');
  const res = body === undefined ? await req : await req.send(body as object);
  conforms(res, method.toUpperCase(), path);
  return res;
}

/** Every route of an Express router (recursing into routers mounted without a path). */
function routesOf(router: Router): string[] {
  const out: string[] = [];
  for (const layer of (router as unknown as { stack: any[] }).stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) out.push(`${method.toUpperCase()} /__admin${String(layer.route.path).replace(/:"([^"]+)"|:([A-Za-z_]+)/g, (_m, quoted, plain) => `{${quoted ?? plain}}`)}`);
    } else if (layer.handle?.stack) {
      out.push(...routesOf(layer.handle));
    }
  }
  return out;
}

describe('control plane routes and contract/admin.yaml', () => {
  it('describes every route of the admin router, and routes every operation it describes', () => {
    const h = createHarness();
    const routes = routesOf(createAdminRouter(harnessInternals(h).runtime, createControlPlane(harnessInternals(h).runtime)))
      .map((r) => r.replace('{id}', '{delivery-id}'))
      .sort();
    const documented = admin.contract.operations.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort();
    expect(routes).toEqual(documented);
  });

  it('answers an unknown control-plane path with 404 and an undeclared method with 405, as problems', async () => {
    const h = createHarness();
    const missing = await h.http.get('/__admin/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body.type).toBe('https://shipmock.dev/problems/route-not-found');
    const wrong = await h.http.delete('/__admin/clock');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, PUT');
  });

  it('validates control-plane bodies and queries against admin.yaml (400 naming the field)', async () => {
    const h = createHarness();
    const bad = await adminCall(h, 'post', '/__admin/clock/advance', { duration: 'four hours' });
    expect(bad.status).toBe(400);
    expect(bad.body.properties.violations).toEqual([{ field: 'body/duration', message: expect.stringContaining('pattern') }]);
    const extra = await adminCall(h, 'post', '/__admin/reset', { accountId: 'a', everything: true });
    expect(extra.body.properties.violations).toEqual([{ field: 'body/everything', message: 'is not allowed' }]);
    const query = await adminCall(h, 'get', '/__admin/journal?status=teapot');
    expect(query.body.properties.violations[0].field).toBe('query/status');
    const json = await h.http.put('/__admin/clock').set('Content-Type', 'application/json').send('{"now":');
    expect(json.status).toBe(400);
    expect(json.body.type).toBe('https://shipmock.dev/problems/malformed-json');
  });
});

describe('clock', () => {
  it('reads, advances by an ISO 8601 duration and sets the virtual clock; tokens expire with it', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    expect((await adminCall(h, 'get', '/__admin/clock')).body).toEqual({ now: '2026-01-01T00:00:00.000Z', epochMs: Date.parse('2026-01-01T00:00:00Z'), mode: 'manual' });
    expect((await adminCall(h, 'post', '/__admin/clock/advance', { duration: 'PT3H59M' })).body.now).toBe('2026-01-01T03:59:00.000Z');
    expect((await h.http.get('/v1/addresses').set('Authorization', account.auth)).status).toBe(200);
    expect((await adminCall(h, 'post', '/__admin/clock/advance', { ms: 60_000 })).body.now).toBe('2026-01-01T04:00:00.000Z');
    expect((await h.http.get('/v1/addresses').set('Authorization', account.auth)).status).toBe(401);
    expect((await adminCall(h, 'put', '/__admin/clock', { now: '2026-06-01T12:00:00Z' })).body.now).toBe('2026-06-01T12:00:00.000Z');
    expect(h.clock.now()).toBe('2026-06-01T12:00:00.000Z');
  });
});

describe('reset', () => {
  it('empties everything, or only one account’s data (the account and its token stay)', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    const b = await newAccount(h);
    for (const account of [a, b]) await h.http.post('/v1/addresses').set('Authorization', account.auth).send(ADDRESS);

    expect((await adminCall(h, 'post', '/__admin/reset', { accountId: a.accountId })).status).toBe(204);
    expect((await h.http.get('/v1/addresses').set('Authorization', a.auth)).body.items).toEqual([]);
    expect((await h.http.get('/v1/addresses').set('Authorization', b.auth)).body.items).toHaveLength(1);
    expect(h.journal.find({ accountId: a.accountId })).toHaveLength(1);

    expect((await adminCall(h, 'post', '/__admin/reset')).status).toBe(204);
    expect((await h.http.get('/v1/accounts').set('Authorization', a.companyAuth)).body.items).toEqual([]);
    expect(h.journal.find()).toHaveLength(1);
  });

  it('restarts the seeded ids: the same steps after a reset give the same ids', async () => {
    const h = createHarness();
    const first = await newAccount(h);
    await adminCall(h, 'post', '/__admin/reset');
    const second = await newAccount(h);
    expect(second.accountId).toBe(first.accountId);
  });
});

describe('state export and import', () => {
  it('restores another mock exactly: resources with their ids, time, scenarios with counters; new ids do not collide', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    const created = await h.http.post('/v1/addresses').set('Authorization', account.auth).send(ADDRESS);
    h.clock.advance(90_000);
    h.scenarios.activate('fail-twice-then-succeed', { accountId: account.accountId, params: { path: '/v1/addresses' } });
    expect((await h.http.get('/v1/addresses').set('Authorization', account.auth)).status).toBe(503);
    const exported = await adminCall(h, 'get', '/__admin/state');
    expect(exported.status).toBe(200);

    const other = createHarness({ tokenSecret: 'x'.repeat(32) });
    expect((await adminCall(other, 'put', '/__admin/state', exported.body)).status).toBe(204);
    expect(other.clock.now()).toBe('2026-01-01T00:01:30.000Z');
    const [activation] = other.scenarios.list();
    expect(activation).toMatchObject({ name: 'fail-twice-then-succeed', accountId: account.accountId, hits: 1 });

    const token = await other.http.post(`/v1/accounts/${account.accountId}/tokens`).set('Authorization', other.basic).send({ grantType: 'client_credentials' });
    const auth = `Bearer ${token.body.accessToken}`;
    expect((await other.http.get('/v1/addresses').set('Authorization', auth)).status).toBe(503);
    const list = await other.http.get('/v1/addresses').set('Authorization', auth);
    expect(list.body.items.map((x: { id: string }) => x.id)).toEqual([created.body.id]);

    h.scenarios.deactivate('fail-twice-then-succeed');
    const next = await h.http.post('/v1/addresses').set('Authorization', account.auth).send(ADDRESS);
    const imported = await other.http.post('/v1/addresses').set('Authorization', auth).send(ADDRESS);
    expect(imported.status).toBe(201);
    expect(imported.body.id).toBe(next.body.id);
    expect(imported.body.id).not.toBe(created.body.id);
  });

  it('refuses a broken state with 400 and keeps the state it had', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    await h.http.post('/v1/addresses').set('Authorization', account.auth).send(ADDRESS);
    const state = (await adminCall(h, 'get', '/__admin/state')).body;
    const broken = { ...state, scenarios: { activations: [{ definition: { name: 'x', rules: [] }, source: 'api', activatedAt: 0, rules: [] }] } };
    const res = await adminCall(h, 'put', '/__admin/state', broken);
    expect(res.status).toBe(400);
    expect((await h.http.get('/v1/addresses').set('Authorization', account.auth)).body.items).toHaveLength(1);
    expect((await adminCall(h, 'put', '/__admin/state', { ...state, format: 'other' })).status).toBe(400);
  });
});

describe('journal', () => {
  it('keeps API requests (not /__admin) with account, operation, status, problem, and filters them', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    const b = await newAccount(h);
    await h.http.post('/v1/addresses').set('Authorization', a.auth).send(ADDRESS);
    h.clock.advance(1000);
    await h.http.get('/v1/addresses/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11').set('Authorization', a.auth);
    await h.http.get('/v1/addresses').set('Authorization', b.auth);
    await h.http.get('/__admin/clock');

    const all = await adminCall(h, 'get', '/__admin/journal');
    expect(all.body.capacity).toBe(1000);
    expect(all.body.items.some((e: { path: string }) => e.path.startsWith('/__admin'))).toBe(false);
    const ofA = (await adminCall(h, 'get', `/__admin/journal?account_id=${a.accountId}&path=/v1/addresses/**`)).body.items;
    expect(ofA).toHaveLength(2);
    const missing = (await adminCall(h, 'get', `/__admin/journal?status=4xx&account_id=${a.accountId}`)).body.items;
    expect(missing).toEqual([
      expect.objectContaining({ method: 'GET', status: 404, problem: 'not-found', operationId: 'getAddress', accountId: a.accountId, outcome: 'completed' }),
    ]);
    const later = (await adminCall(h, 'get', `/__admin/journal?since=2026-01-01T00:00:01Z`)).body.items;
    expect(later.map((e: { operationId: string }) => e.operationId)).toEqual(['getAddress', 'listAddresses']);
    expect((await adminCall(h, 'get', '/__admin/journal?limit=1')).body.items).toHaveLength(1);
    expect((await adminCall(h, 'get', '/__admin/journal?operation_id=createAddress')).body.items).toHaveLength(1);

    expect((await adminCall(h, 'delete', `/__admin/journal?account_id=${b.accountId}`)).status).toBe(204);
    expect((await adminCall(h, 'get', `/__admin/journal?account_id=${b.accountId}`)).body.items).toEqual([]);
    expect((await adminCall(h, 'delete', '/__admin/journal')).status).toBe(204);
    expect((await adminCall(h, 'get', '/__admin/journal')).body.items).toEqual([]);
  });

  it('is bounded: the oldest entries go first', async () => {
    const h = createHarness({ journalSize: 3 });
    for (let i = 0; i < 5; i++) await h.http.get(`/v1/nothing-${i}`);
    const items = (await adminCall(h, 'get', '/__admin/journal')).body.items;
    expect(items.map((e: { path: string }) => e.path)).toEqual(['/v1/nothing-2', '/v1/nothing-3', '/v1/nothing-4']);
  });

  it('reports over HTTP whether Retry-After was honoured', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    h.scenarios.activate('rate-limit-burst', { accountId: account.accountId, params: { limit: 1, window: 'PT2S' } });
    await h.http.get('/v1/addresses').set('Authorization', account.auth);
    await h.http.get('/v1/addresses').set('Authorization', account.auth);
    h.clock.advance(2000);
    await h.http.get('/v1/addresses').set('Authorization', account.auth);
    expect((await adminCall(h, 'get', `/__admin/journal/retry-after?account_id=${account.accountId}`)).body).toEqual({ ok: true, checked: 1, violations: [] });
  });
});

describe('credentials and companies', () => {
  it('lists the accepted credentials and adds a company whose credentials work at once', async () => {
    const h = createHarness();
    const list = await adminCall(h, 'get', '/__admin/credentials');
    expect(list.body.companies[0]).toMatchObject({ clientId: 'shipmock-demo-client' });
    const created = await adminCall(h, 'post', '/__admin/companies', { name: 'Parallel Co', clientId: 'parallel', clientSecret: 'parallel-secret' });
    expect(created.status).toBe(201);
    const basic = `Basic ${Buffer.from('parallel:parallel-secret').toString('base64')}`;
    const token = await h.http.post(`/v1/companies/${created.body.companyId}/tokens`).set('Authorization', basic).send({ grantType: 'client_credentials' });
    expect(token.status).toBe(200);
    expect((await adminCall(h, 'post', '/__admin/companies', { clientId: 'parallel' })).status).toBe(400);
    const generated = await adminCall(h, 'post', '/__admin/companies', {});
    expect(generated.body).toEqual({ companyId: expect.any(String), name: expect.any(String), clientId: expect.any(String), clientSecret: expect.any(String) });
  });

  it('does not move resource ids when companies are added', async () => {
    const plain = createHarness();
    const withCompany = createHarness();
    await withCompany.http.post('/__admin/companies').send({});
    expect((await newAccount(withCompany)).accountId).toBe((await newAccount(plain)).accountId);
  });
});

describe('scenarios over the control API', () => {
  it('activates by name (scoped, with params), lists hit counts, and deactivates', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    const activated = await adminCall(h, 'post', '/__admin/scenarios', { name: 'fail-twice-then-succeed', accountId: account.accountId, params: { path: '/v1/addresses' } });
    expect(activated.status).toBe(201);
    expect(activated.body).toMatchObject({ name: 'fail-twice-then-succeed', accountId: account.accountId, source: 'api', hits: 0, params: { path: '/v1/addresses' } });
    await h.http.get('/v1/addresses').set('Authorization', account.auth);
    const listed = await adminCall(h, 'get', '/__admin/scenarios');
    expect(listed.body.active[0]).toMatchObject({ hits: 1, rules: [{ index: 0, name: 'outage', kind: 'request', matched: 1, fired: 1 }] });
    expect(listed.body.available.map((s: { name: string }) => s.name)).toContain('rate-limit-burst');
    expect((await adminCall(h, 'delete', '/__admin/scenarios/fail-twice-then-succeed')).status).toBe(204);
    expect((await adminCall(h, 'delete', '/__admin/scenarios/fail-twice-then-succeed')).status).toBe(404);
    expect((await h.http.get('/v1/addresses').set('Authorization', account.auth)).status).toBe(200);
  });

  it('activates an inline JSON definition and a YAML body', async () => {
    const h = createHarness();
    const account = await newAccount(h);
    const json = await adminCall(h, 'post', '/__admin/scenarios', {
      definition: { name: 'teapot-addresses', rules: [{ match: { operationId: 'listAddresses' }, effect: { respond: { status: 418, problem: 'rule-violation', detail: 'I am a teapot' } } }] },
    });
    expect(json.status).toBe(201);
    const teapot = await h.http.get('/v1/addresses').set('Authorization', account.auth);
    expect(teapot.status).toBe(418);
    expect(teapot.body).toMatchObject({ type: 'https://shipmock.dev/problems/rule-violation', detail: 'I am a teapot' });

    const yaml = 'name: no-addresses\nrules:\n  - match: { method: POST, path: /v1/addresses }\n    effect: { respond: { status: 500 } }\n';
    const res = await h.http.post('/__admin/scenarios').set('Content-Type', 'application/yaml').send(yaml);
    expect(res.status).toBe(201);
    const failed = await h.http.post('/v1/addresses').set('Authorization', account.auth).send(ADDRESS);
    expect(failed.status).toBe(500);
    expect(failed.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it.each([
    ['a bad status', { definition: { name: 'x', rules: [{ effect: { respond: { status: 200 } } }] } }, 'body/definition/rules/0/effect/respond/status'],
    ['an unknown effect', { definition: { name: 'x', rules: [{ effect: { explode: true } }] } }, 'body/definition/rules/0/effect/explode'],
    ['two terminal effects', { definition: { name: 'x', rules: [{ effect: { reset: true, respond: { status: 503 } } }] } }, 'body/definition/rules/0/effect'],
    ['an unknown parameter', { name: 'rate-limit-burst', params: { burst: 3 } }, 'params/burst'],
    ['name and definition', { name: 'rate-limit-burst', definition: { name: 'x', rules: [] } }, 'body'],
  ])('refuses %s with 400 naming the field', async (_label, body, field) => {
    const h = createHarness();
    const res = await adminCall(h, 'post', '/__admin/scenarios', body);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain(field);
    expect(h.scenarios.list()).toEqual([]);
  });

  it('answers 404 for an unknown scenario name', async () => {
    const res = await adminCall(createHarness(), 'post', '/__admin/scenarios', { name: 'no-such-scenario' });
    expect(res.status).toBe(404);
  });
});

describe('access', () => {
  it('requires X-Admin-Key when an admin key is set, except for health', async () => {
    const h = createHarness({ adminKey: 'correct-horse' });
    expect((await h.http.get('/__admin/health')).status).toBe(200);
    const missing = await h.http.get('/__admin/clock');
    expect(missing.status).toBe(401);
    expect(missing.body.detail).toMatch(/X-Admin-Key/);
    expect((await h.http.get('/__admin/clock').set('X-Admin-Key', 'wrong-horse')).status).toBe(401);
    expect((await h.http.get('/__admin/clock').set('X-Admin-Key', 'correct-horse')).status).toBe(200);
  });
});
