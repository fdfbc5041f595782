import { describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { ADDRESS, call, liveMockWithFreshAccount, type LiveAccount } from '../support/live-mock.js';

/**
 * Scenario files are input too (issue 12): patterns that make a backtracking regex engine take
 * seconds, regular expressions it cannot run safely, and waits that never end are refused or
 * matched in linear time, and never stall the mock for other clients.
 */
let mock: RunningMock;
let account: LiveAccount;
liveMockWithFreshAccount((live) => ({ mock, account } = live));

/** POST /__admin/scenarios with a JSON definition, through the control plane's real socket. */
const activate = (definition: object) => call(mock, 'POST', '/__admin/scenarios', { body: { definition } });

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

describe('scenario patterns are matched in linear time', () => {
  it('a body glob with many stars does not stall a request with a long field', async () => {
    // With RegExp, `*a*a*a*a*a*a*b` against the 200 a's of a street takes hours (O(n^7) backtracking).
    const added = await activate({ name: 'stars-body', rules: [{ match: { body: { street: '*a*a*a*a*a*a*b' } }, effect: { respond: { status: 503 } } }] });
    expect(added.status).toBe(201);
    const { ms, value } = await timed(() => call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: { ...ADDRESS, street: 'a'.repeat(200) } }));
    expect(value.status).toBe(201);
    expect(ms).toBeLessThan(500);
  });

  it('a path glob with many stars does not stall a request with a long path', async () => {
    expect((await activate({ name: 'stars-path', rules: [{ match: { path: '/v1/*a*a*a*a*b' }, effect: { respond: { status: 503 } } }] })).status).toBe(201);
    const { ms, value } = await timed(() => call(mock, 'GET', `/v1/${'a'.repeat(4000)}`, { auth: account.auth }));
    expect(value.status).toBe(404);
    expect(ms).toBeLessThan(500);
    // The glob still means what it says.
    expect((await call(mock, 'GET', '/v1/aaaab', { auth: account.auth })).status).toBe(503);
  });

  it('a header regular expression with nested repetition runs in linear time and still matches', async () => {
    expect((await activate({ name: 'nested-regex', rules: [{ match: { headers: { 'x-probe': '/^(a|a)*y$/' } }, effect: { respond: { status: 503 } } }] })).status).toBe(201);
    const slow = await timed(() => call(mock, 'GET', '/v1/addresses', { auth: account.auth, headers: { 'x-probe': `${'a'.repeat(4000)}!` } }));
    expect(slow.value.status).toBe(200);
    expect(slow.ms).toBeLessThan(500);
    expect((await call(mock, 'GET', '/v1/addresses', { auth: account.auth, headers: { 'x-probe': 'aaay' } })).status).toBe(503);
  });
});

describe('scenario input the mock cannot run safely is refused at activation', () => {
  it.each([
    ['a look-ahead', { headers: { 'x-probe': '/(?=a)a/' } }, 'scenario/rules/0/match/headers/x-probe'],
    ['a back-reference', { headers: { 'x-probe': '/(a)\\1/' } }, 'scenario/rules/0/match/headers/x-probe'],
  ])('a header regular expression with %s → 400 naming the field', async (_what, match, field) => {
    const res = await activate({ name: 'bad-regex', rules: [{ match, effect: { respond: { status: 503 } } }] });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations.map((v: { field: string }) => v.field)).toContain(field.replace(/^scenario/, 'body/definition'));
    expect((await call(mock, 'GET', '/__admin/scenarios')).body.active).toEqual([]);
  });

  it.each([
    ['a latency of thirty days', { latency: 'P30D' }, 'latency'],
    ['a carrier delay of a year', { carrier: { outcome: 'SLOW', delay: 'P52W' } }, 'carrier/delay'],
  ])('%s → 400 naming the field', async (_what, effect, field) => {
    const res = await activate({ name: 'long-wait', rules: [{ effect }] });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toContainEqual({ field: `body/definition/rules/0/effect/${field}`, message: 'must be at most one day (P1D)' });
  });

  it('an overlong pattern is refused by the scenario format', async () => {
    const res = await activate({ name: 'long-glob', rules: [{ match: { path: `/${'*'.repeat(600)}` }, effect: { respond: { status: 503 } } }] });
    expect(res.status).toBe(400);
  });
});
