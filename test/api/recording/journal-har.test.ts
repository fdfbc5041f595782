import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../../src/server/start-mock.js';
import { ADDRESS, call, liveAccount, startLiveMock, type LiveAccount } from '../../support/live-mock.js';

/**
 * HAR out (GET /__admin/journal.har) and in (POST /__admin/scenarios with a HAR), through real
 * HTTP: the journal's HAR holds no secret, and turned back into a scenario on another mock it
 * answers the same bytes in the same order.
 */
let mock: RunningMock;
let replay: RunningMock;
let account: LiveAccount;

beforeAll(async () => {
  mock = await startLiveMock();
  replay = await startLiveMock({ seed: 99 });
  account = await liveAccount(mock);
});
afterAll(async () => {
  await mock.close();
  await replay.close();
});

const admin = (target: RunningMock, method: string, path: string, body?: unknown, contentType = 'application/json') =>
  fetch(`${target.url}/__admin${path}`, { method, headers: body === undefined ? { 'X-Shipmock-Admin': '1' } : { 'Content-Type': contentType }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });

describe('GET /__admin/journal.har', () => {
  it('is a HAR 1.2 document of the journal, secrets shortened, with each exchange’s operation and verdict', async () => {
    await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: ADDRESS });
    await call(mock, 'POST', '/v1/addresses', { auth: account.auth, body: { ...ADDRESS, countryCode: 'XX-bad' } });
    const res = await admin(mock, "GET", `/journal.har?account_id=${account.accountId}&path=/v1/addresses`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="shipmock-journal-.*\.har"$/);
    const text = await res.text();
    const har = JSON.parse(text);
    expect(har.log).toMatchObject({ version: '1.2', creator: { name: 'shipmock' } });
    const [created, refused] = har.log.entries;
    expect(created.request).toMatchObject({ method: 'POST', url: `${mock.url}/v1/addresses` });
    expect(created.response.status).toBe(201);
    expect(JSON.parse(created.response.content.text)).toEqual({ id: expect.any(String) });
    expect(JSON.parse(created.request.postData.text)).toEqual(ADDRESS);
    expect(created._shipmock).toMatchObject({ operationId: 'createAddress', conforms: true });
    expect(refused.response.status).toBe(400);
    expect(refused._shipmock.conforms).toBe(false);
    expect(refused._shipmock.violations[0].field).toMatch(/^request\/body\/countryCode/);
    // No credential: the account's token appears shortened only.
    const token = account.auth.slice('Bearer '.length);
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(0, 12));
    expect(created.request.headers.find((h: { name: string }) => h.name === 'authorization').value).toBe(`Bearer ${token.slice(0, 6)}…`);
  });

  it('refuses a bad filter with a problem naming the parameter', async () => {
    const res = await admin(mock, 'GET', '/journal.har?status=abc');
    expect(res.status).toBe(400);
    expect((await res.json()).properties.violations[0].field).toBe('query/status');
  });
});

describe('a HAR becomes a scenario (POST /__admin/scenarios)', () => {
  it('round-trips: the journal’s HAR, activated on another mock, answers the same bytes in the same order', async () => {
    const other = await liveAccount(mock);
    const first = await call(mock, 'POST', '/v1/addresses', { auth: other.auth, body: ADDRESS });
    const id = first.body.id as string;
    const reads = [await call(mock, 'GET', `/v1/addresses/${id}`, { auth: other.auth })];
    await call(mock, 'PUT', `/v1/addresses/${id}`, { auth: other.auth, body: { ...ADDRESS, name: 'Renamed' } });
    reads.push(await call(mock, 'GET', `/v1/addresses/${id}`, { auth: other.auth }));
    const list = await call(mock, 'GET', '/v1/addresses?limit=5', { auth: other.auth });
    expect(reads[0].body.name).toBe(ADDRESS.name);
    expect(reads[1].body.name).toBe('Renamed');

    const har = await (await admin(mock, 'GET', `/journal.har?account_id=${other.accountId}`)).json();
    const replayAccount = await liveAccount(replay);
    const activated = await admin(replay, 'POST', `/scenarios?name=from-journal&account_id=${replayAccount.accountId}`, har);
    const view = await activated.json();
    expect(activated.status, JSON.stringify(view)).toBe(201);
    expect(view).toMatchObject({ name: 'from-journal', skipped: [] });

    // The same requests against the replaying mock (another seed: its own ids would differ).
    const again = await call(replay, 'POST', '/v1/addresses', { auth: replayAccount.auth, body: ADDRESS });
    expect(again.text).toBe(first.text);
    const read1 = await call(replay, 'GET', `/v1/addresses/${id}`, { auth: replayAccount.auth });
    const patched = await call(replay, 'PUT', `/v1/addresses/${id}`, { auth: replayAccount.auth, body: { ...ADDRESS, name: 'Renamed' } });
    const read2 = await call(replay, 'GET', `/v1/addresses/${id}`, { auth: replayAccount.auth });
    const listed = await call(replay, 'GET', '/v1/addresses?limit=5', { auth: replayAccount.auth });
    expect([read1.text, read2.text]).toEqual([reads[0].text, reads[1].text]);
    expect(patched.status).toBe(204);
    expect(listed.text).toBe(list.text);
    expect(listed.headers.get('x-shipmock-source')).toBe('recorded');
  });

  it.each<[string, () => unknown, RegExp]>([
    ['log of the wrong type', () => ({ log: 5 }), /^body\/log$/],
    ['entries of the wrong type', () => ({ log: { entries: 'x' } }), /^body\/log\/entries$/],
    ['a request without a method', () => ({ log: { entries: [{ request: { url: 'http://x/v1/addresses', headers: [] }, response: { status: 200, headers: [], content: {} } }] } }), /^body\/log\/entries\/0\/request/],
    ['a relative URL', () => ({ log: { entries: [{ request: { method: 'GET', url: '/v1/addresses', headers: [] }, response: { status: 200, headers: [], content: {} } }] } }), /^body\/log\/entries\/0\/request\/url$/],
    ['a NUL in the URL', () => ({ log: { entries: [{ request: { method: 'GET', url: 'http://x/v1/\u0000', headers: [] }, response: { status: 200, headers: [], content: { text: 'a' } } }] } }), /^body/],
    ['base64 garbage', () => ({ log: { entries: [{ request: { method: 'GET', url: 'http://x/v1/addresses', headers: [] }, response: { status: 200, headers: [], content: { text: '%%%not base64', encoding: 'base64' } } }] } }), /^body\/log\/entries\/0\/response\/content\/text$/],
    ['headers of the wrong shape', () => ({ log: { entries: [{ request: { method: 'GET', url: 'http://x/v1/addresses', headers: [{ name: 1 }] }, response: { status: 200, headers: [], content: {} } }] } }), /^body\/log\/entries\/0\/request\/headers\/0/],
    ['a HAR with nothing to answer', () => ({ log: { entries: [] } }), /^body/],
    ['a HAR with members beside log', () => ({ log: { entries: [] }, name: 'x' }), /^body\/name$/],
    ['deeply nested', () => `{"log":{"entries":[${'['.repeat(5000)}${']'.repeat(5000)}]}}`, /^body/],
  ])('%s: a 400 naming the field, nothing activated', async (_label, make, field) => {
    const before = (await (await admin(replay, 'GET', '/scenarios')).json()).active.length;
    const res = await admin(replay, 'POST', '/scenarios?name=bad-har', make());
    const problem = await res.json();
    expect(res.status, JSON.stringify(problem)).toBe(400);
    expect(problem.type).toMatch(/validation-error$/);
    expect(problem.properties.violations.some((v: { field: string }) => field.test(v.field)), JSON.stringify(problem.properties.violations)).toBe(true);
    expect((await (await admin(replay, 'GET', '/scenarios')).json()).active.length).toBe(before);
  });

  it('a HAR over the body limit is a 413; a body that is not JSON a 400', async () => {
    const huge = { log: { entries: Array.from({ length: 3000 }, (_, i) => ({ request: { method: 'GET', url: `http://x/v1/addresses/${i}`, headers: [] }, response: { status: 200, headers: [], content: { text: 'x'.repeat(400) } } })) } };
    expect((await admin(replay, 'POST', '/scenarios', huge)).status).toBe(413);
    expect((await admin(replay, 'POST', '/scenarios', '{"log": {"entries": [')).status).toBe(400);
  });
});
