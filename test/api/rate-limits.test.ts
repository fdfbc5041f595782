import { describe, expect, it, vi } from 'vitest';
import { createHarness, newAccount, harnessInternals } from '../support/harness.js';

const ADDRESS = { name: 'A', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const limits = (res: { headers: Record<string, string> }) => [
  res.headers['x-ratelimit-limit'],
  res.headers['x-ratelimit-remaining'],
  res.headers['x-ratelimit-reset'],
];

describe('rate limits', () => {
  it('walks a window to exhaustion: headers count down, 429 with Retry-After, no state change, then a fresh window', async () => {
    const h = createHarness({ rateLimit: { limit: 3, windowMs: 60_000 } });
    const a = await newAccount(h);
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.http.get('/v1/addresses').set('Authorization', a.auth);
      expect(res.status).toBe(200);
      seen.push(limits(res));
    }
    expect(seen).toEqual([
      ['3', '2', '60'],
      ['3', '1', '60'],
      ['3', '0', '60'],
    ]);

    h.clock.advance(10_500);
    const limited = await h.http.post('/v1/addresses').set('Authorization', a.auth).send(ADDRESS);
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited.body).toMatchObject({ type: 'https://shipmock.dev/problems/rate-limited', status: 429 });
    // A load tester learns from the answer itself which setting made it, and how to change it.
    expect(limited.body.detail).toBe('Rate limit of 3 requests per window exceeded; retry after 50 s. Start shipmock with --rate-limit N/DUR (e.g. 100000/60s) or --rate-limit off to change it (startMock({ rateLimit })).');
    expect(limits(limited)).toEqual(['3', '0', '50']);
    expect(limited.headers['retry-after']).toBe(limited.headers['x-ratelimit-reset']);
    expect(harnessInternals(h).services.addresses.all(a.accountId)).toEqual([]);

    h.clock.advance(49_499);
    expect((await h.http.get('/v1/addresses').set('Authorization', a.auth)).status).toBe(429);
    h.clock.advance(1);
    const fresh = await h.http.post('/v1/addresses').set('Authorization', a.auth).send(ADDRESS);
    expect(fresh.status).toBe(201);
    expect(limits(fresh)).toEqual(['3', '2', '60']);
  });

  it('--rate-limit off: no 429 for a verified caller however many requests, nothing counted, the headers still sent', async () => {
    const { parseRateLimit } = await import('../../src/cli/parse-limits.js');
    const h = createHarness({ rateLimit: parseRateLimit('off') });
    const a = await newAccount(h);
    let last;
    for (let i = 0; i < 50; i++) last = await h.http.get('/v1/addresses').set('Authorization', a.auth);
    expect(last!.status).toBe(200);
    expect(limits(last!)).toEqual(['2147483647', '2147483647', '60']);
    expect(harnessInternals(h).runtime.rateLimiter.principals.size).toBe(0);
    // Garbage tokens get the address window, a tenth of that: also practically unlimited.
    expect((await h.http.get('/v1/addresses').set('Authorization', 'Bearer garbage')).headers['x-ratelimit-limit']).toBe('214748365');
  });

  it('names the scenario when its own window refused the request', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    h.scenarios.activate('rate-limit-burst', { accountId: a.accountId, params: { limit: 1, window: 'PT30S' } });
    await h.http.get('/v1/addresses').set('Authorization', a.auth);
    const limited = await h.http.get('/v1/addresses').set('Authorization', a.auth);
    expect(limited.status).toBe(429);
    expect(limited.body.detail).toContain('The limit comes from the scenario rate-limit-burst/burst: deactivate it');
  });

  it('counts per credential: another account keeps its own window', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    const b = await newAccount(h);
    h.rateLimits.configure({ limit: 2, windowMs: 60_000 });
    for (let i = 0; i < 3; i++) await h.http.get('/v1/addresses').set('Authorization', a.auth);
    expect((await h.http.get('/v1/addresses').set('Authorization', a.auth)).status).toBe(429);
    const other = await h.http.get('/v1/addresses').set('Authorization', b.auth);
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe('1');
  });

  it.each([
    ['a 401', '/v1/addresses', 401],
    ['a 404 route', '/v1/nothing-here', 404],
  ])('sets the headers on %s too (an unauthenticated caller counts in its address window, a tenth of the limit)', async (_label, path, status) => {
    const h = createHarness({ rateLimit: { limit: 50, windowMs: 60_000 } });
    const res = await h.http.get(path);
    expect(res.status).toBe(status);
    expect(limits(res)).toEqual(['5', '4', '60']);
  });

  it('counts a 404 with a valid token against the token\'s principal', async () => {
    const h = createHarness({ rateLimit: { limit: 50, windowMs: 60_000 } });
    const a = await newAccount(h);
    const res = await h.http.get('/v1/nothing-here').set('Authorization', a.auth);
    expect(res.status).toBe(404);
    expect(limits(res)).toEqual(['50', '49', '60']);
  });

  it('leaves every X-RateLimit-* header off a 500', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    vi.spyOn(harnessInternals(h).services.addresses, 'list').mockImplementation(() => {
      throw new Error('boom');
    });
    const res = await h.http.get('/v1/addresses').set('Authorization', a.auth);
    expect(res.status).toBe(500);
    expect(res.body.type).toBe('https://shipmock.dev/problems/internal-error');
    expect(Object.keys(res.headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
  });

  it('has a default generous enough for any integration test (6000 per minute per credential, 600 per address without one)', async () => {
    const h = createHarness();
    const a = await newAccount(h);
    const res = await h.http.get('/v1/addresses').set('Authorization', a.auth);
    expect(limits(res)).toEqual(['6000', '5999', '60']);
    const anonymous = await h.http.get('/v1/addresses');
    expect(anonymous.status).toBe(401);
    expect(limits(anonymous)).toEqual(['600', '599', '60']);
  });
});
