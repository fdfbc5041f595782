import { describe, expect, it } from 'vitest';
import { loadCompiledContract } from '../../contract/compiled-contract.js';
import type { UpstreamAnswer } from '../upstream.js';
import { compareAnswers } from './differ.js';
import { Equivalence } from './equivalence.js';
import { formatPath, parsePathPattern } from './json-path.js';
import { createVolatility } from './volatility.js';

const { contract } = loadCompiledContract();
const MOCK = { companyId: 'mock-company', clientId: 'mock-client', clientSecret: 'mock-secret-value' };

function answer(status: number, body: unknown, headers: Record<string, string> = {}): UpstreamAnswer {
  const text = body === undefined ? '' : JSON.stringify(body);
  const all = { 'content-type': 'application/json', ...headers };
  return { status, headers: all, raw: Object.entries(all).flat(), body: Buffer.from(text) };
}

describe('JSON paths of --ignore', () => {
  it('matches members, any index, a given index and any depth', () => {
    expect(parsePathPattern('$.items[*].createdAt').matches(['items', 3, 'createdAt'])).toBe(true);
    expect(parsePathPattern('$.items[*].createdAt').matches(['items', 3, 'updatedAt'])).toBe(false);
    expect(parsePathPattern('$.items[1].name').matches(['items', 0, 'name'])).toBe(false);
    expect(parsePathPattern('$..reference').matches(['parcels', 0, 'reference'])).toBe(true);
    expect(parsePathPattern('$..reference').matches(['reference'])).toBe(true);
    expect(parsePathPattern("$['odd key'].*").matches(['odd key', 'x'])).toBe(true);
    expect(formatPath(['items', 0, 'odd key'])).toBe("$.items[0]['odd key']");
  });

  it('refuses what selects by value, naming the flag', () => {
    expect(() => parsePathPattern('$.items[?(@.a)]')).toThrow(/--ignore .*filters and slices/);
    expect(() => parsePathPattern('items.a')).toThrow(/must start with \$/);
    expect(() => parsePathPattern('$.items[0')).toThrow(/not closed/);
  });
});

describe('volatile fields', () => {
  const volatility = createVolatility(contract, ['$.reference']);
  it('follows the contract (format uuid, date-time), the names and the user’s paths', () => {
    expect(volatility.isVolatile('getAddress', 200, 'application/json', ['id'])).toBe(true);
    expect(volatility.isVolatile('getAddress', 200, 'application/json', ['createdAt'])).toBe(true);
    expect(volatility.isVolatile('getAddress', 200, 'application/json', ['postalCode'])).toBe(false);
    expect(volatility.isVolatile('listAddresses', 200, 'application/json', ['items', 4, 'city'])).toBe(false);
    expect(volatility.isVolatile(undefined, 200, undefined, ['parcelIds', 2])).toBe(true);
    expect(volatility.isVolatile(undefined, 200, undefined, ['accessToken'])).toBe(true);
    expect(volatility.isVolatile(undefined, 200, undefined, ['reference'])).toBe(true);
    expect(volatility.isVolatile(undefined, 200, undefined, ['status'])).toBe(false);
  });
});

describe('comparing two answers', () => {
  const volatility = createVolatility(contract);
  const context = () => ({ operationId: 'getAddress', volatility, equivalence: new Equivalence(MOCK, { upstream: 'http://real.test', mock: 'http://mock.test' }) });

  it('ignores volatile values but not their presence or type', () => {
    const same = compareAnswers(answer(200, { id: 'a', createdAt: '2026-01-01T00:00:00Z', city: 'Berlin' }), answer(200, { id: 'b', createdAt: '2027-01-01T00:00:00Z', city: 'Berlin' }), context());
    expect(same.differences).toEqual([]);
    const typed = compareAnswers(answer(200, { id: 'a', createdAt: 1 }), answer(200, { createdAt: '2027-01-01T00:00:00Z' }), context());
    expect(typed.differences).toEqual([
      { kind: 'body', field: '$.id', issue: 'missing-in-mock', upstream: '"a"' },
      { kind: 'body', field: '$.createdAt', issue: 'type', upstream: '1', mock: '"2027-01-01T00:00:00Z"' },
    ]);
  });

  it('compares the headers that matter: a value, a presence, a form', () => {
    const found = compareAnswers(
      answer(200, {}, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '600', 'retry-after': '5', date: 'Mon' }),
      answer(200, {}, { 'content-type': 'application/json', 'x-ratelimit-limit': '6000', 'retry-after': 'soon', date: 'Tue' }),
      context(),
    ).differences;
    expect(found.map((d) => `${d.field} ${d.issue}`)).toEqual(['header/content-type value', 'header/retry-after type']);
  });

  it('maps learned ids inside strings and Location paths, and shortens secrets it shows', () => {
    const c = context();
    c.equivalence.learn('up-id-123456', 'mock-id-654321');
    const found = compareAnswers(
      answer(404, { instance: '/v1/addresses/up-id-123456', clientSecret: 'upstream-secret-value-1234' }, { location: 'http://real.test/v1/addresses/up-id-123456' }),
      answer(404, { instance: '/v1/addresses/mock-id-654321', clientSecret: 'another-secret-value-5678' }, { location: '/v1/addresses/mock-id-654321' }),
      c,
    ).differences;
    expect(found).toEqual([]);
    const shown = compareAnswers(answer(200, { password: 'upstream-secret-value-1234' }), answer(200, { password: 7 }), c).differences;
    expect(JSON.stringify(shown)).not.toContain('upstream-secret-value-1234');
  });

  it('says why a binary body was not compared, and flags JSON against something else', () => {
    const png = (n: number): UpstreamAnswer => ({ status: 200, headers: { 'content-type': 'image/png' }, raw: [], body: Buffer.alloc(n) });
    const compared = compareAnswers(png(10), png(12), context());
    expect(compared.differences).toEqual([]);
    expect(compared.notes[0]).toMatch(/body not compared: 10 bytes of image\/png/);
    expect(compareAnswers(answer(200, { a: 1 }), png(3), context()).differences.map((d) => d.field)).toEqual(['header/content-type', '$']);
  });
});

describe('the request the mock gets', () => {
  it('carries the mock’s credentials, token and ids', () => {
    const e = new Equivalence(MOCK, { upstream: 'http://real.test', mock: 'http://mock.test' });
    e.learnFromAnswers({ accessToken: 'up-token-abcdefgh', tokenType: 'Bearer' }, { accessToken: 'mock-token-ijklmnop', tokenType: 'Bearer' });
    e.learnFromAnswers({ id: 'up-1', parcels: [{ id: 'up-p1', weight: 1 }] }, { id: 'mk-1', parcels: [{ id: 'mk-p1', weight: 1 }] });
    expect(e.authorization('Bearer up-token-abcdefgh')).toBe('Bearer mock-token-ijklmnop');
    expect(e.authorization('Basic cmVhbDpzZWNyZXQ=')).toBe(`Basic ${Buffer.from('mock-client:mock-secret-value').toString('base64')}`);
    expect(e.path('/v1/shipment-bookings/up-1?parcel_id=up-p1&limit=5')).toBe('/v1/shipment-bookings/mk-1?parcel_id=mk-p1&limit=5');
    expect(e.body({ parcelIds: ['up-p1'], reference: 'up-1x' })).toEqual({ parcelIds: ['mk-p1'], reference: 'up-1x' });
    // A learned pair is kept: a later answer does not re-pair it.
    e.learnFromAnswers({ id: 'up-1' }, { id: 'other' });
    expect(e.toMock('up-1')).toBe('mk-1');
  });
});
