import { describe, expect, it } from 'vitest';
import { createShippingClient, type ShippingClientOptions } from './create-shipping-client.js';
import { ShippingApiError } from './errors.js';
import { retryDelayMs } from './retry-on-429.js';

const COMPANY = '5f0c6a3e-1d2b-4c8e-9a7f-3b2d1e0c9a84';
const ACCOUNT = '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11';
const HOUR = 3_600_000;

interface Seen {
  method: string;
  path: string;
  authorization: string | null;
  body: string;
}

/** A scripted server: each handler answers one request; everything is recorded. */
function fakeServer(handler: (seen: Seen, index: number) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const fetch = async (request: Request) => {
    const entry: Seen = {
      method: request.method,
      path: new URL(request.url).pathname,
      authorization: request.headers.get('authorization'),
      body: request.body ? await request.text() : '',
    };
    seen.push(entry);
    return handler(entry, seen.length - 1);
  };
  return { seen, fetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

const problem = (status: number, slug: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type: `https://shipmock.dev/problems/${slug}`, title: slug, status, detail: `${slug} detail` }), {
    status,
    headers: { 'Content-Type': 'application/problem+json', ...headers },
  });

/** Issues numbered tokens valid for 4 h from the fake clock; answers lists with an empty page. */
function tokenIssuingServer(clock: { now: number }, override?: (seen: Seen, index: number) => Response | undefined) {
  let issued = 0;
  return fakeServer((seen, index) => {
    const custom = override?.(seen, index);
    if (custom) return custom;
    if (seen.path.endsWith('/tokens')) {
      issued++;
      return json(200, { accessToken: `token-${issued}`, expiresAt: clock.now + 4 * HOUR, tokenType: 'Bearer' });
    }
    return json(200, { items: [] });
  });
}

function client(fetch: ShippingClientOptions['fetch'], extra: Partial<ShippingClientOptions> = {}) {
  const waits: number[] = [];
  const clock = { now: 1_768_480_200_000 };
  const c = createShippingClient({
    baseUrl: 'http://shipping.test/',
    companyId: COMPANY,
    clientId: 'client',
    clientSecret: 'secret',
    accountId: ACCOUNT,
    fetch,
    now: () => clock.now,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });
  return { c, waits, clock };
}

describe('typed client: tokens', () => {
  it('fetches a Company token with Basic credentials on first use and reuses it while fresh', async () => {
    const clock = { now: 1_768_480_200_000 };
    const server = tokenIssuingServer(clock);
    const { c } = client(server.fetch, { now: () => clock.now });
    await c.company.GET('/v1/accounts');
    await c.company.GET('/v1/accounts');
    expect(server.seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      `POST /v1/companies/${COMPANY}/tokens`,
      'GET /v1/accounts',
      'GET /v1/accounts',
    ]);
    expect(server.seen[0].authorization).toBe(`Basic ${Buffer.from('client:secret').toString('base64')}`);
    expect(JSON.parse(server.seen[0].body)).toEqual({ grantType: 'client_credentials' });
    expect(server.seen[1].authorization).toBe('Bearer token-1');
    expect(server.seen[2].authorization).toBe('Bearer token-1');
  });

  it('renews the token before expiresAt (renewBeforeMs), measured on the injected clock', async () => {
    const clock = { now: 1_768_480_200_000 };
    const server = tokenIssuingServer(clock);
    const { c } = client(server.fetch, { now: () => clock.now, renewBeforeMs: 60_000 });
    await c.company.GET('/v1/accounts');
    clock.now += 4 * HOUR - 60_001; // 1 ms before the renewal margin: still fresh
    await c.company.GET('/v1/accounts');
    clock.now += 1; // inside the margin: renewed
    await c.company.GET('/v1/accounts');
    const tokenCalls = server.seen.filter((s) => s.path.endsWith('/tokens'));
    expect(tokenCalls).toHaveLength(2);
    expect(server.seen.filter((s) => s.path === '/v1/accounts').map((s) => s.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-1',
      'Bearer token-2',
    ]);
  });

  it('keeps one Account token per account and asks the account token endpoint for it', async () => {
    const clock = { now: 1_768_480_200_000 };
    const server = tokenIssuingServer(clock);
    const { c } = client(server.fetch, { now: () => clock.now });
    const other = '9a1e0c2b-3d4f-4a5b-8c6d-7e8f9a0b1c2d';
    await c.account.GET('/v1/addresses');
    await c.forAccount(other).GET('/v1/addresses');
    await c.account.GET('/v1/addresses');
    expect(server.seen.map((s) => `${s.method} ${s.path} ${s.authorization?.startsWith('Basic') ? 'Basic' : s.authorization}`)).toEqual([
      `POST /v1/accounts/${ACCOUNT}/tokens Basic`,
      'GET /v1/addresses Bearer token-1',
      `POST /v1/accounts/${other}/tokens Basic`,
      'GET /v1/addresses Bearer token-2',
      'GET /v1/addresses Bearer token-1',
    ]);
  });

  it('shares one token request between concurrent calls', async () => {
    const clock = { now: 1_768_480_200_000 };
    const server = tokenIssuingServer(clock);
    const { c } = client(server.fetch, { now: () => clock.now });
    await Promise.all([c.company.GET('/v1/accounts'), c.company.GET('/v1/accounts'), c.company.GET('/v1/carriers')]);
    expect(server.seen.filter((s) => s.path.endsWith('/tokens'))).toHaveLength(1);
  });

  it('on a 401 renews the token once and sends the request again with the same body', async () => {
    const clock = { now: 1_768_480_200_000 };
    const server = tokenIssuingServer(clock, (seen) =>
      seen.path === '/v1/addresses' && seen.authorization === 'Bearer token-1' ? problem(401, 'invalid-token') : undefined,
    );
    const { c } = client(server.fetch, { now: () => clock.now });
    const body = { name: 'Erika', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
    const { response } = await c.account.POST('/v1/addresses', { body });
    expect(response.status).toBe(200);
    const posts = server.seen.filter((s) => s.path === '/v1/addresses');
    expect(posts.map((s) => s.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(posts.map((s) => JSON.parse(s.body))).toEqual([body, body]);
  });

  it('returns a second 401 to the caller instead of looping', async () => {
    const clock = { now: 1_768_480_200_000 };
    const server = tokenIssuingServer(clock, (seen) => (seen.path === '/v1/addresses' ? problem(401, 'invalid-token') : undefined));
    const { c } = client(server.fetch, { now: () => clock.now });
    const { error, response } = await c.account.GET('/v1/addresses');
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ status: 401, type: 'https://shipmock.dev/problems/invalid-token' });
    expect(server.seen.filter((s) => s.path.endsWith('/tokens'))).toHaveLength(2);
    expect(server.seen.filter((s) => s.path === '/v1/addresses')).toHaveLength(2);
  });

  it('throws a ShippingApiError carrying the problem when the token endpoint refuses', async () => {
    const server = fakeServer(() => problem(401, 'invalid-credentials'));
    const { c } = client(server.fetch);
    const failure = await c.company.GET('/v1/accounts').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ShippingApiError);
    expect(failure).toMatchObject({ status: 401, problem: { type: 'https://shipmock.dev/problems/invalid-credentials' } });
    expect((failure as Error).message).toContain('invalid-credentials detail');
  });

  it('uses a seeded token without asking the token endpoint', async () => {
    const server = fakeServer(() => json(200, { items: [] }));
    const { c, clock } = client(server.fetch);
    c.tokens.seed({ level: 'COMPANY' }, { accessToken: 'seeded', expiresAt: clock.now + HOUR });
    await c.company.GET('/v1/accounts');
    expect(server.seen.map((s) => s.authorization)).toEqual(['Bearer seeded']);
  });

  it('sends Basic client credentials on clientCredentials and a fixed token on withToken', async () => {
    const server = fakeServer(() => json(200, { items: [] }));
    const { c } = client(server.fetch);
    await c.clientCredentials.GET('/v1/carriers');
    await c.withToken('mine').GET('/v1/carriers');
    expect(server.seen.map((s) => s.authorization)).toEqual([`Basic ${Buffer.from('client:secret').toString('base64')}`, 'Bearer mine']);
  });

  it('refuses `account` when no accountId was given', async () => {
    const server = fakeServer(() => json(200, { items: [] }));
    const { c } = client(server.fetch, { accountId: undefined });
    await expect(c.account.GET('/v1/addresses')).rejects.toThrow(/no accountId/);
    expect(server.seen).toHaveLength(0);
  });
});

describe('typed client: Retry-After', () => {
  const limited = (retryAfter: string) => problem(429, 'rate-limited', { 'Retry-After': retryAfter, 'X-RateLimit-Reset': retryAfter });

  it('waits Retry-After seconds and sends the request again', async () => {
    const server = fakeServer((_seen, index) => (index < 2 ? limited('2') : json(200, { items: [] })));
    const { c, waits } = client(server.fetch);
    const { data, response } = await c.withToken('t').GET('/v1/carriers');
    expect(response.status).toBe(200);
    expect(data).toEqual({ items: [] });
    expect(waits).toEqual([2000, 2000]);
    expect(server.seen).toHaveLength(3);
  });

  it('gives up after maxRetries and hands back the 429 with its Retry-After', async () => {
    const server = fakeServer(() => limited('1'));
    const { c, waits } = client(server.fetch, { maxRetries: 2 });
    const { error, response } = await c.withToken('t').GET('/v1/carriers');
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(error).toMatchObject({ status: 429 });
    expect(waits).toEqual([1000, 1000]);
    expect(server.seen).toHaveLength(3);
  });

  it('does not wait longer than maxRetryWaitMs: the 429 is returned at once', async () => {
    const server = fakeServer(() => limited('120'));
    const { c, waits } = client(server.fetch, { maxRetryWaitMs: 60_000 });
    const { response } = await c.withToken('t').GET('/v1/carriers');
    expect(response.status).toBe(429);
    expect(waits).toEqual([]);
    expect(server.seen).toHaveLength(1);
  });

  it('resends the same body after a 429 and applies Retry-After to token requests too', async () => {
    const server = fakeServer((seen, index) => {
      if (index === 0) return limited('1');
      if (seen.path.endsWith('/tokens')) return json(200, { accessToken: 'a', expiresAt: 1_768_480_200_000 + 4 * HOUR, tokenType: 'Bearer' });
      if (index === 2) return limited('3');
      return json(201, { id: ACCOUNT });
    });
    const { c, waits } = client(server.fetch);
    const body = { name: 'Erika', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
    const { data } = await c.account.POST('/v1/addresses', { body });
    expect(data).toEqual({ id: ACCOUNT });
    expect(waits).toEqual([1000, 3000]);
    expect(server.seen.map((s) => s.path)).toEqual([`/v1/accounts/${ACCOUNT}/tokens`, `/v1/accounts/${ACCOUNT}/tokens`, '/v1/addresses', '/v1/addresses']);
    expect(JSON.parse(server.seen[3].body)).toEqual(body);
  });

  it.each([
    [{ 'Retry-After': '5' }, 5000],
    [{ 'Retry-After': new Date(1_768_480_200_000 + 7000).toUTCString() }, 7000],
    [{ 'X-RateLimit-Reset': '4' }, 4000],
    [{}, 1000],
  ])('reads the delay from %j as %i ms', (headers, expected) => {
    expect(retryDelayMs(new Response(null, { status: 429, headers }), () => 1_768_480_200_000)).toBe(expected);
  });
});
