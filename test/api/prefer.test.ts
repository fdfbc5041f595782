import { describe, expect, it } from 'vitest';
import { parsePrefer } from '../../src/app/steps/prefer-answer.js';
import { ADDRESS } from '../support/live-mock.js';
import { createHarness, newAccount } from '../support/harness.js';

/** Prism's convention for one-off answers: Prefer: code=N / example=name (RFC 7240 header). */
describe('Prefer: code= and example=', () => {
  const h = createHarness();

  it('answers code=429 with a rate-limited problem whose Retry-After and X-RateLimit-* agree, and changes nothing', async () => {
    const account = await newAccount(h);
    const res = await h.http.post('/v1/addresses').set('Authorization', account.auth).set('Prefer', 'code=429').send(ADDRESS);
    expect(res.status).toBe(429);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: 'https://shipmock.dev/problems/rate-limited', status: 429, instance: '/v1/addresses' });
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['x-ratelimit-reset']).toBe('1');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(res.headers['x-ratelimit-limit']).toBe('6000');
    expect(res.headers['x-shipmock-source']).toBe('prefer');
    expect((await h.http.get('/v1/addresses').set('Authorization', account.auth)).body.items).toEqual([]);
  });

  it('takes retry-after=N for the 429', async () => {
    const account = await newAccount(h);
    const res = await h.http.get('/v1/addresses').set('Authorization', account.auth).set('Prefer', 'code=429, retry-after=7');
    expect(res.headers['retry-after']).toBe('7');
    expect(res.headers['x-ratelimit-reset']).toBe('7');
  });

  it.each([
    [400, 'validation-error'],
    [403, 'forbidden'],
    [404, 'not-found'],
    [500, 'internal-error'],
  ])('answers code=%i with the %s problem', async (status, slug) => {
    const account = await newAccount(h);
    const res = await h.http.get('/v1/addresses/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11').set('Authorization', account.auth).set('Prefer', `code=${status}`);
    expect(res.status).toBe(status);
    expect(res.body.type).toBe(`https://shipmock.dev/problems/${slug}`);
    if (status === 500) expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    else expect(res.headers['x-ratelimit-limit']).toBe('6000');
  });

  it('answers a success code with the contract example', async () => {
    const account = await newAccount(h);
    const example = h.contract.document.paths['/v1/addresses/{address-id}'].get.responses['200'].content['application/json'].example;
    const res = await h.http.get('/v1/addresses/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11').set('Authorization', account.auth).set('Prefer', 'code=200');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(example);
  });

  it('gives the v0 carrier-definition 404 its errors array', async () => {
    const account = await newAccount(h);
    const res = await h.http.get('/v0/carrier-definitions/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11').set('Authorization', account.auth).set('Prefer', 'code=404');
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual([expect.objectContaining({ status: '404' })]);
  });

  it.each([
    ['a status the operation does not declare', 'code=418', /code=418 is not declared for listAddresses/],
    ['an example that does not exist', 'example=overdue', /example=overdue is not an example/],
    ['a code that is not a status', 'code=abc', /not an HTTP status/],
  ])('refuses %s with 400 on header/prefer', async (_label, prefer, detail) => {
    const account = await newAccount(h);
    const res = await h.http.get('/v1/addresses').set('Authorization', account.auth).set('Prefer', prefer);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations[0]).toEqual({ field: 'header/prefer', message: expect.stringMatching(detail) });
  });

  it('ignores preferences it does not know and still needs a valid token', async () => {
    const account = await newAccount(h);
    expect((await h.http.get('/v1/addresses').set('Authorization', account.auth).set('Prefer', 'return=minimal')).status).toBe(200);
    expect((await h.http.get('/v1/addresses').set('Prefer', 'code=200')).status).toBe(401);
  });

  it('picks a named example with example=name', async () => {
    const document = structuredClone(h.contract.document);
    const media = document.paths['/v1/addresses/{address-id}'].get.responses['200'].content['application/json'];
    media.examples = { berlin: { value: media.example }, paris: { value: { ...media.example, city: 'Paris', countryCode: 'FR' } } };
    delete media.example;
    const custom = createHarness({ contract: document });
    const account = await newAccount(custom);
    const res = await custom.http.get('/v1/addresses/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11').set('Authorization', account.auth).set('Prefer', 'example=paris');
    expect(res.status).toBe(200);
    expect(res.body.city).toBe('Paris');
    const first = await custom.http.get('/v1/addresses/0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11').set('Authorization', account.auth).set('Prefer', 'code=200');
    expect(first.body.city).toBe(media.examples.berlin.value.city);
  });
});

describe('parsePrefer', () => {
  it.each([
    ['code=429', { code: 429 }],
    ['code="404", example=missing', { code: 404, example: 'missing' }],
    ['respond-async, wait=5, code=503; foo=bar, retry-after=30', { code: 503, retryAfter: 30 }],
    ['return=minimal', {}],
  ])('%s', (header, expected) => {
    expect(parsePrefer(header)).toEqual(expected);
  });
});
