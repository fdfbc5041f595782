import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAdminContract } from '../../src/admin/admin-contract.js';
import type { RunningMock } from '../../src/server/start-mock.js';
import { companyToken, createHarness, newAccount, type Harness } from '../support/harness.js';
import { startLiveMock } from '../support/live-mock.js';

/**
 * The control plane is for the user, not for any web page their browser opens (README, Control
 * plane security): the three attacks reproduced on the old main — a page reading secrets, a
 * page wiping the state with a body-less POST, a page minting an Admin token with a text/plain
 * POST — and DNS rebinding, each refused through real HTTP with the state unchanged.
 */
const admin = loadAdminContract().gate;
const EVIL = 'https://evil.example';
// What a browser adds to a page's cross-origin fetch().
const BROWSER = { Origin: EVIL, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' };

/**
 * The answer is a problem of this slug that admin.yaml declares for the operation; only an
 * allowed origin (`allowedOrigin`) may read it, never `*`.
 */
function refusedWith(res: { status: number; headers: Record<string, string>; body: any }, method: string, path: string, slug: string, status: number, allowedOrigin?: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.type).toBe(`https://shipmock.dev/problems/${slug}`);
  expect(res.headers['access-control-allow-origin']).toBe(allowedOrigin);
  const match = admin.routes.match(method, path);
  if (match.kind !== 'operation') throw new Error(`${method} ${path} is not in admin.yaml`);
  expect(admin.validators.forOperation(match.operation.operationId).response(status, 'application/problem+json', res.body), `${status} declared for ${match.operation.operationId}`).toEqual([]);
}

async function accountsOf(h: Harness): Promise<string[]> {
  const res = await h.http.get('/v1/accounts').set('Authorization', await companyToken(h));
  return res.body.items.map((a: { id: string }) => a.id);
}

describe('a web page cannot use the control plane', () => {
  it('cannot read client secrets with a cross-origin fetch, and gets no CORS header', async () => {
    const h = createHarness();
    const res = await h.http.get('/__admin/credentials').set(BROWSER);
    refusedWith(res, 'GET', '/__admin/credentials', 'control-plane-refused', 403);
    expect(JSON.stringify(res.body)).not.toContain(h.credentials.clientSecret);
    // Neither with a no-cors request that names no origin (an <img>, a <script>).
    const noCors = await h.http.get('/__admin/state').set({ 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' });
    refusedWith(noCors, 'GET', '/__admin/state', 'control-plane-refused', 403);
    expect(noCors.text).not.toContain(h.credentials.clientSecret);
  });

  it('cannot wipe the state with a body-less POST /__admin/reset', async () => {
    const h = createHarness();
    const { accountId } = await newAccount(h);
    const fromPage = await h.http.post('/__admin/reset').set(BROWSER);
    refusedWith(fromPage, 'POST', '/__admin/reset', 'control-plane-refused', 403);
    // Without an Origin (a browser that leaves it out) the body-less POST is still not enough.
    const simple = await h.http.post('/__admin/reset');
    refusedWith(simple, 'POST', '/__admin/reset', 'control-plane-refused', 403);
    expect(simple.body.detail).toContain('X-Shipmock-Admin');
    expect(await accountsOf(h)).toEqual([accountId]);
    // The user's own call, with the header, still works.
    expect((await h.http.post('/__admin/reset').set('X-Shipmock-Admin', '1')).status).toBe(204);
    expect(await accountsOf(h)).toEqual([]);
  });

  it('cannot mint an Admin token with a text/plain or form POST /__admin/tokens', async () => {
    const h = createHarness();
    const fromPage = await h.http.post('/__admin/tokens').set(BROWSER).set('Content-Type', 'text/plain').send('{"level":"ADMIN"}');
    refusedWith(fromPage, 'POST', '/__admin/tokens', 'control-plane-refused', 403);
    expect(fromPage.body.accessToken).toBeUndefined();
    for (const type of ['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await h.http.post('/__admin/tokens').set('Content-Type', type).send('level=ADMIN');
      refusedWith(res, 'POST', '/__admin/tokens', 'unsupported-media-type', 415);
      expect(res.body.accessToken).toBeUndefined();
    }
    const json = await h.http.post('/__admin/tokens').send({ level: 'ADMIN' });
    expect(json.status).toBe(200);
    expect(json.body.accessToken).toEqual(expect.any(String));
  });

  it('refuses a Host that is not loopback (DNS rebinding), even from the same "origin"', async () => {
    const h = createHarness();
    const { accountId } = await newAccount(h);
    const rebound = await h.http
      .post('/__admin/reset')
      .set({ Host: 'evil.example:4010', Origin: 'http://evil.example:4010', 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' })
      .send({});
    refusedWith(rebound, 'POST', '/__admin/reset', 'control-plane-refused', 403);
    expect(await accountsOf(h)).toEqual([accountId]);
    refusedWith(await h.http.get('/__admin/credentials').set('Host', 'evil.example'), 'GET', '/__admin/credentials', 'control-plane-refused', 403);
    refusedWith(await h.http.get('/__admin/clock').set('Host', '127.0.0.1.evil.example:4010'), 'GET', '/__admin/clock', 'control-plane-refused', 403);
    for (const host of ['localhost:4010', '127.0.0.1:4010', '127.1.2.3', '[::1]:4010']) {
      expect((await h.http.get('/__admin/clock').set('Host', host)).status, host).toBe(200);
    }
    // Health stays open to any Host (container health checks); the API is not limited by Host.
    expect((await h.http.get('/__admin/health').set('Host', 'shipmock:4010')).status).toBe(200);
    expect((await h.http.get('/v1/accounts').set('Host', 'shipmock:4010')).status).toBe(401);
  });

  it('accepts the Host names given with adminHosts', async () => {
    const h = createHarness({ adminHosts: ['mock.test'] });
    expect((await h.http.get('/__admin/clock').set('Host', 'mock.test:4010')).status).toBe(200);
    expect((await h.http.get('/__admin/clock').set('Host', 'other.test:4010')).status).toBe(403);
  });

  it('never answers Access-Control-Allow-Origin: * on /__admin; the API keeps it', async () => {
    const h = createHarness();
    const health = await h.http.get('/__admin/health').set('Origin', EVIL);
    refusedWith(health, 'GET', '/__admin/health', 'control-plane-refused', 403);
    const plain = await h.http.get('/__admin/clock');
    expect(plain.status).toBe(200);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    expect(plain.headers.vary).toContain('Origin');
    const preflight = await h.http.options('/__admin/reset').set({ Origin: EVIL, 'Access-Control-Request-Method': 'POST' });
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect((await h.http.get('/v1/accounts')).headers['access-control-allow-origin']).toBe('*');
  });

  it('lets the mock’s own pages (same origin) in, secrets included; a page that only claims same-origin under another Origin gets none', async () => {
    const h = createHarness();
    const own = { Host: '127.0.0.1:4010', Origin: 'http://127.0.0.1:4010', 'Sec-Fetch-Site': 'same-origin' };
    expect((await h.http.get('/__admin/clock').set(own)).status).toBe(200);
    // The inspector exports state and /docs fetches a token for the seeded company.
    expect((await h.http.get('/__admin/credentials').set({ Host: '127.0.0.1:4010', 'Sec-Fetch-Site': 'same-origin' })).status).toBe(200);
    expect((await h.http.get('/__admin/credentials').set(own)).status).toBe(200);
    const mismatched = { Host: '127.0.0.1:4010', Origin: 'http://127.0.0.1:9999', 'Sec-Fetch-Site': 'same-origin' };
    expect((await h.http.get('/__admin/credentials').set(mismatched)).status).toBe(403);
    refusedWith(await h.http.get('/__admin/credentials').set({ Host: '127.0.0.1:4010', 'Sec-Fetch-Site': 'same-site' }), 'GET', '/__admin/credentials', 'control-plane-refused', 403);
  });
});

describe('allowed origins (adminOrigins / --admin-origin)', () => {
  const APP = 'http://localhost:3000';

  it('echo the origin with Vary: Origin and answer its preflights', async () => {
    const h = createHarness({ adminOrigins: [APP] });
    const clock = await h.http.get('/__admin/clock').set({ Origin: APP, 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'cors' });
    expect(clock.status).toBe(200);
    expect(clock.headers['access-control-allow-origin']).toBe(APP);
    expect(clock.headers.vary).toContain('Origin');
    const preflight = await h.http
      .options('/__admin/reset')
      .set({ Origin: APP, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(APP);
    expect(preflight.headers['access-control-allow-methods']).toBe('POST');
    expect(preflight.headers['access-control-allow-headers']).toContain('X-Shipmock-Admin');
    const { accountId } = await newAccount(h);
    const reset = await h.http.post('/__admin/reset').set({ Origin: APP, 'Sec-Fetch-Site': 'same-site' }).send({ accountId });
    expect(reset.status).toBe(204);
    // Another port of the same host is another origin.
    refusedWith(await h.http.get('/__admin/clock').set('Origin', 'http://localhost:3001'), 'GET', '/__admin/clock', 'control-plane-refused', 403);
  });

  it('still get no secrets: credentials, state export, new companies, Admin tokens', async () => {
    const h = createHarness({ adminOrigins: [APP] });
    const page = { Origin: APP, 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'cors' };
    for (const [method, path] of [['GET', '/__admin/credentials'], ['GET', '/__admin/state'], ['POST', '/__admin/companies'], ['POST', '/__admin/tokens']] as const) {
      const req = method === 'GET' ? h.http.get(path).set(page) : h.http.post(path).set(page).send({});
      const res = await req;
      // The page may read why (its origin is allowed), never the secrets.
      refusedWith(res, method, path, 'control-plane-refused', 403, APP);
      expect(res.body.detail).toContain('secrets');
    }
    expect(h.companies.list().companies).toHaveLength(1);
  });
});

describe('admin key (adminKey / --admin-key)', () => {
  const KEY = 'correct-horse-battery';

  it('is required on every route but health (401), and counts as intent for a body-less POST', async () => {
    const h = createHarness({ adminKey: KEY });
    refusedWith(await h.http.get('/__admin/clock'), 'GET', '/__admin/clock', 'unauthorized', 401);
    refusedWith(await h.http.get('/__admin/clock').set('X-Admin-Key', 'wrong-horse-battery'), 'GET', '/__admin/clock', 'unauthorized', 401);
    expect((await h.http.get('/__admin/clock').set('X-Admin-Key', KEY)).status).toBe(200);
    expect((await h.http.get('/__admin/health')).status).toBe(200);
    const { accountId } = await newAccount(h);
    refusedWith(await h.http.post('/__admin/reset'), 'POST', '/__admin/reset', 'unauthorized', 401);
    expect(await accountsOf(h)).toEqual([accountId]);
    expect((await h.http.post('/__admin/reset').set('X-Admin-Key', KEY)).status).toBe(204);
    expect(await accountsOf(h)).toEqual([]);
  });

  it('lets a shared sandbox be reached under any Host name; the Origin and secret rules still hold', async () => {
    const h = createHarness({ adminKey: KEY });
    expect((await h.http.get('/__admin/credentials').set({ Host: 'sandbox.example.com', 'X-Admin-Key': KEY })).status).toBe(200);
    const page = await h.http.get('/__admin/clock').set({ ...BROWSER, Host: 'sandbox.example.com', 'X-Admin-Key': KEY });
    refusedWith(page, 'GET', '/__admin/clock', 'control-plane-refused', 403);
    const text = await h.http.post('/__admin/tokens').set({ 'X-Admin-Key': KEY, 'Content-Type': 'text/plain' }).send('x');
    refusedWith(text, 'POST', '/__admin/tokens', 'unsupported-media-type', 415);
  });
});

describe('body limit', () => {
  it('is the API’s (bodyLimit): 413 beyond it, nothing imported or activated', async () => {
    const h = createHarness({ bodyLimit: 2048 });
    const before = (await h.http.get('/__admin/state')).body;
    const big = { ...before, padding: 'x'.repeat(4096) };
    refusedWith(await h.http.put('/__admin/state').send(big), 'PUT', '/__admin/state', 'payload-too-large', 413);
    refusedWith(await h.http.post('/__admin/tokens').send({ level: 'ADMIN', padding: 'x'.repeat(4096) }), 'POST', '/__admin/tokens', 'payload-too-large', 413);
    const scenario = { definition: { name: 'big', description: 'x'.repeat(4096), rules: [] } };
    refusedWith(await h.http.post('/__admin/scenarios').send(scenario), 'POST', '/__admin/scenarios', 'payload-too-large', 413);
    expect((await h.http.get('/__admin/scenarios')).body.active).toEqual([]);
    // Under the limit the same routes work.
    expect((await h.http.put('/__admin/state').send(before)).status).toBe(204);
  });
});

describe('over a real socket', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startLiveMock();
  });
  afterAll(() => mock.close());

  it('serves Node’s fetch (which sends Sec-Fetch-Mode: cors) and a typed-in URL, not a page', async () => {
    const secret = mock.credentials.clientSecret;
    const node = await fetch(`${mock.url}/__admin/credentials`);
    expect(node.status).toBe(200);
    expect(await node.text()).toContain(secret);
    const typedIn = await fetch(`${mock.url}/__admin/credentials`, { headers: { 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Mode': 'navigate' } });
    expect(typedIn.status).toBe(200);
    const page = await fetch(`${mock.url}/__admin/credentials`, { headers: BROWSER });
    expect(page.status).toBe(403);
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    expect(await page.text()).not.toContain(secret);
    const form = await fetch(`${mock.url}/__admin/reset`, { method: 'POST', headers: { Origin: EVIL, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expect(form.status).toBe(403);
  });
});
