import { beforeAll, describe, expect, it } from 'vitest';
import { createHarness, newAccount, type TestAccount } from '../support/harness.js';

/** DESIGN.md "Bad input": every row gets its problem, and a refused request changes nothing. */
const h = createHarness({ bodyLimit: 4096 });
let a: TestAccount;
let b: TestAccount;
const address = { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
const problemType = (slug: string) => `https://shipmock.dev/problems/${slug}`;

beforeAll(async () => {
  a = await newAccount(h);
  b = await newAccount(h);
});

async function addressCount(account: TestAccount): Promise<number> {
  const res = await h.http.get('/v1/addresses?limit=100').set('Authorization', account.auth);
  return res.body.items.length;
}

describe('bad input gets a precise problem and changes no state', () => {
  it.each([
    ['wrong type', { ...address, name: 42 }, 'body/name', 'must be of type string'],
    ['missing required', { name: 'x', street: 's', city: 'c', countryCode: 'DE' }, 'body/postalCode', 'is required'],
    ['bad pattern/enum-like code', { ...address, countryCode: 'Germany' }, 'body/countryCode', 'must match pattern'],
    ['bad email', { ...address, email: 'not-an-email' }, 'body/email', 'must be a valid email'],
    ['unknown field', { ...address, colour: 'blue' }, 'body/colour', 'is not allowed'],
    ['array instead of object', [address], 'body', 'must be of type object'],
  ])('%s → 400 naming the field', async (_case, body, field, message) => {
    const before = await addressCount(a);
    const res = await h.http.post('/v1/addresses').set('Authorization', a.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.type).toBe(problemType('validation-error'));
    expect(res.body.properties.violations).toContainEqual({ field, message: expect.stringContaining(message) });
    expect(await addressCount(a)).toBe(before);
  });

  it('bad enum in a query parameter → 400 naming it', async () => {
    const res = await h.http.get('/v1/addresses?sort=SIDEWAYS').set('Authorization', a.auth);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toContainEqual({ field: 'query/sort', message: 'must be one of: ASC, DESC' });
  });

  it('limit out of range and a non-number → 400', async () => {
    const res = await h.http.get('/v1/addresses?limit=0').set('Authorization', a.auth);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations[0].field).toBe('query/limit');
    const nan = await h.http.get('/v1/addresses?limit=many').set('Authorization', a.auth);
    expect(nan.status).toBe(400);
  });

  it('bad uuid in the path → 400', async () => {
    const res = await h.http.get('/v1/addresses/not-a-uuid').set('Authorization', a.auth);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toContainEqual({ field: 'path/address-id', message: 'must be a valid uuid' });
  });

  it('malformed JSON → 400 malformed-json', async () => {
    const before = await addressCount(a);
    const res = await h.http.post('/v1/addresses').set('Authorization', a.auth).set('Content-Type', 'application/json').send('{"name": "x",');
    expect(res.status).toBe(400);
    expect(res.body.type).toBe(problemType('malformed-json'));
    expect(await addressCount(a)).toBe(before);
  });

  it('missing body → 400 body is required', async () => {
    const res = await h.http.post('/v1/addresses').set('Authorization', a.auth);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toContainEqual({ field: 'body', message: 'is required' });
  });

  it('body over the size limit → 413', async () => {
    const before = await addressCount(a);
    const res = await h.http.post('/v1/addresses').set('Authorization', a.auth).send({ ...address, reference: 'x'.repeat(5000) });
    expect(res.status).toBe(413);
    expect(res.body.type).toBe(problemType('payload-too-large'));
    expect(await addressCount(a)).toBe(before);
  });

  it('unsupported Content-Type → 415', async () => {
    const res = await h.http.post('/v1/addresses').set('Authorization', a.auth).set('Content-Type', 'text/plain').send('name=x');
    expect(res.status).toBe(415);
    expect(res.body.type).toBe(problemType('unsupported-media-type'));
  });

  it('unknown path → 404, wrong method → 405', async () => {
    expect((await h.http.get('/v1/teleporters').set('Authorization', a.auth)).status).toBe(404);
    const res = await h.http.delete('/v1/addresses').set('Authorization', a.auth);
    expect(res.status).toBe(405);
    expect(res.body.type).toBe(problemType('method-not-allowed'));
  });

  it.each([
    ['no token', undefined, 'unauthorized'],
    ['garbage token', 'Bearer garbage', 'invalid-token'],
    ['tampered token', 'TAMPER', 'invalid-token'],
    ['unknown scheme', 'Digest abc', 'unauthorized'],
  ])('%s → 401', async (_case, header, slug) => {
    let req = h.http.get('/v1/addresses');
    const value = header === 'TAMPER' ? `${a.auth.slice(0, -4)}AAAA` : header;
    if (value) req = req.set('Authorization', value);
    const res = await req;
    expect(res.status).toBe(401);
    expect(res.body.type).toBe(problemType(slug));
  });

  it('foreign-signed token (another mock instance) → 401', async () => {
    const other = createHarness();
    const foreign = await newAccount(other);
    const res = await h.http.get('/v1/addresses').set('Authorization', foreign.auth);
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/signature/);
  });

  it('bad Basic credentials → 401 invalid-credentials', async () => {
    const res = await h.http
      .post(`/v1/companies/${h.companyId}/tokens`)
      .set('Authorization', `Basic ${Buffer.from('shipmock-demo-client:wrong').toString('base64')}`)
      .send({ grantType: 'client_credentials' });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe(problemType('invalid-credentials'));
  });

  it('expired token (virtual clock past 4 h) → 401', async () => {
    const local = createHarness();
    const account = await newAccount(local);
    expect((await local.http.get('/v1/addresses').set('Authorization', account.auth)).status).toBe(200);
    local.clock.advance(4 * 3600_000 + 1000);
    const res = await local.http.get('/v1/addresses').set('Authorization', account.auth);
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/expired/);
  });

  it('wrong token level → 403', async () => {
    const res = await h.http.get('/v1/addresses').set('Authorization', a.companyAuth);
    expect(res.status).toBe(403);
    expect(res.body.type).toBe(problemType('forbidden'));
  });

  it("another account's id → 404, and it stays untouched", async () => {
    const created = await h.http.post('/v1/addresses').set('Authorization', a.auth).send(address);
    const id = created.body.id;
    for (const res of [
      await h.http.get(`/v1/addresses/${id}`).set('Authorization', b.auth),
      await h.http.put(`/v1/addresses/${id}`).set('Authorization', b.auth).send({ ...address, city: 'Hamburg' }),
      await h.http.delete(`/v1/addresses/${id}`).set('Authorization', b.auth),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.type).toBe(problemType('not-found'));
    }
    const mine = await h.http.get(`/v1/addresses/${id}`).set('Authorization', a.auth);
    expect(mine.body.city).toBe('Berlin');
  });

  it.each([
    ['a broken percent escape in the path', '/v1/addresses/%E0%A4%A'],
    ['a very long path', `/v1/${'x'.repeat(5000)}`],
    ['dot segments', '/v1/../__admin/health'],
  ])('%s never answers 500', async (_case, path) => {
    const res = await h.http.get(path).set('Authorization', a.auth);
    expect(res.status).toBeLessThan(500);
  });

  it.each([
    ['__proto__ pollution', '{"__proto__": {"polluted": true}, "name": "x"}'],
    ['deep nesting', `${'['.repeat(2000)}${']'.repeat(2000)}`],
    ['JSON null', 'null'],
    ['a huge number', '{"name": 1e999}'],
  ])('%s in a body → 400, never 500', async (_case, raw) => {
    const res = await h.http.post('/v1/addresses').set('Authorization', a.auth).set('Content-Type', 'application/json').send(raw);
    expect(res.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
