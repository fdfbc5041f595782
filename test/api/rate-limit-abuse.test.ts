import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTokenService } from '../../src/auth/tokens.js';
import { internalsOf, type RunningMock } from '../../src/server/start-mock.js';
import { createHarness, newAccount, type Harness } from '../support/harness.js';
import { startLiveMock } from '../support/live-mock.js';

/**
 * Rate limits an attacker cannot aim (DESIGN, Bad input: "a forged or unknown token → 401,
 * counted against the caller's address, never against the principal it names"), limiter maps
 * that stay bounded under a flood of garbage, and client-credential guessing locked per
 * (client id, address).
 */
const GRANT = { grantType: 'client_credentials' };
const limits = (res: { headers: Record<string, string> }) => [res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining'], res.headers['x-ratelimit-reset']];
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const basic = (clientId: string, secret: string) => `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;

/** A JWT-shaped token with the claims an attacker wants and a made-up signature. */
function unsignedToken(claims: Record<string, unknown>): string {
  return `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ iat: 0, exp: 4_102_444_800, expMs: 4_102_444_800_000, ...claims })}.${Buffer.from('not a signature').toString('base64url')}`;
}

describe('a forged credential never counts against the principal it names', () => {
  // 20 per window per credential; 2 per window for the attacker's address.
  const LIMIT = 20;
  let h: Harness;
  let victim: Awaited<ReturnType<typeof newAccount>>;
  beforeEach(async () => {
    h = createHarness({ rateLimit: { limit: LIMIT, windowMs: 60_000 } });
    victim = await newAccount(h);
  });

  const forgeries: [string, (h: Harness, accountId: string) => string][] = [
    ['an unsigned token naming the account', (h, aid) => `Bearer ${unsignedToken({ lvl: 'ACCOUNT', cid: h.companyId, aid, sub: 'shipmock-demo-client' })}`],
    [
      'a token signed by another instance naming the account',
      (h, aid) => `Bearer ${createTokenService({ secret: 'someone else', now: () => h.clock.epochMs() }).sign({ lvl: 'ACCOUNT', cid: h.companyId, aid, sub: 'shipmock-demo-client' }, 3_600_000).token}`,
    ],
    [
      'an expired real token of the account',
      (h, aid) => `Bearer ${h.tokens.sign({ lvl: 'ACCOUNT', cid: h.companyId, aid, sub: 'shipmock-demo-client' }, 1).token}`,
    ],
  ];

  it.each(forgeries)('%s: 401 then 429 on the address window; the real token keeps its whole window', async (_label, forge) => {
    const forged = forge(h, victim.accountId);
    h.clock.advance(1); // the 1 ms token has expired; no window ends
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 5; i++) {
      const res = await h.http.get('/v1/addresses').set('Authorization', forged);
      statuses.push(res.status);
      expect(res.headers['x-ratelimit-limit']).toBe('2');
    }
    expect(statuses.slice(0, 2)).toEqual([401, 401]);
    expect(new Set(statuses.slice(2))).toEqual(new Set([429]));

    const real = await h.http.get('/v1/addresses').set('Authorization', victim.auth);
    expect(real.status).toBe(200);
    expect(limits(real)).toEqual([String(LIMIT), String(LIMIT - 1), '60']);
    expect(h.rateLimits.peek(`account:${victim.accountId}`).remaining).toBe(LIMIT - 1);
  });

  it('a forged Company token naming the company leaves the real company token its window', async () => {
    const forged = `Bearer ${unsignedToken({ lvl: 'COMPANY', cid: h.companyId, sub: 'shipmock-demo-client' })}`;
    for (let i = 0; i < LIMIT + 5; i++) await h.http.get('/v1/accounts').set('Authorization', forged);
    // newAccount spent one request of the company's window creating the account.
    const real = await h.http.get('/v1/accounts').set('Authorization', victim.companyAuth);
    expect(real.status).toBe(200);
    expect(limits(real)).toEqual([String(LIMIT), String(LIMIT - 2), '60']);
  });

  it('wrong secrets for the client id count against the address, not the client; the client still gets tokens', async () => {
    const clientId = h.credentials.clientId;
    const before = h.rateLimits.peek(`client:${clientId}`).remaining;
    for (let i = 0; i < 5; i++) {
      const res = await h.http.post(`/v1/companies/${h.companyId}/tokens`).set('Authorization', basic(clientId, `guess-${i}`)).send(GRANT);
      expect(res.status).toBe(i < 2 ? 401 : 429);
    }
    expect(h.rateLimits.peek(`client:${clientId}`).remaining).toBe(before);
  });
});

describe('limiter maps stay bounded', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startLiveMock();
  });
  afterAll(() => mock.close());

  // 5,000 over real HTTP keeps the file fast; the limiter unit tests push 50,000+ keys, and
  // bench/rate-limit-flood.mjs measures the memory of 50,000 over HTTP (README, Rate limits).
  it('5,000 distinct garbage and forged tokens hold one address window, and it goes when idle', async () => {
    const FLOOD = 5_000;
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const get = (auth: string, path = '/v1/addresses') =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: mock.port, path, agent, headers: { authorization: auth } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end();
      });
    const limiter = internalsOf(mock).runtime.rateLimiter;
    let next = 0;
    const statuses = new Map<number, number>();
    const worker = async () => {
      while (next < FLOOD) {
        const i = next++;
        const auth = i % 2 ? `Bearer garbage-${i}` : `Bearer ${unsignedToken({ lvl: 'ACCOUNT', aid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, sub: 'x' })}`;
        const status = await get(auth);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    agent.destroy();
    expect(statuses.get(401)).toBe(600);
    expect(statuses.get(429)).toBe(FLOOD - 600);
    expect(limiter.size).toBe(1);
    expect(limiter.addresses.size).toBe(1);
    expect(limiter.principals.size).toBe(0);

    // The window ends with no new hit: the next use of the limiter drops it.
    mock.clock.advance(60_000);
    const token = mock.tokens.sign({ lvl: 'COMPANY', cid: mock.credentials.companyId, sub: mock.credentials.clientId }, 3_600_000).token;
    expect(await get(`Bearer ${token}`, '/v1/accounts')).toBe(200);
    expect(limiter.addresses.size).toBe(0);
    expect(limiter.principals.size).toBe(1);
  }, 60_000);
});

/** One request over a socket bound to `from` (any 127.0.0.0/8 address works on loopback). */
function callFrom(mock: RunningMock, from: string, path: string, auth: string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
    const payload = JSON.stringify(GRANT);
    const req = httpRequest(
      { host: '127.0.0.1', port: mock.port, path, method: 'POST', localAddress: from, agent: false, headers: { authorization: auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('client-credential guessing is locked per (client id, address)', () => {
  let mock: RunningMock;
  let path: string;
  let clientId: string;
  let right: string;
  beforeAll(async () => {
    mock = await startLiveMock();
    path = `/v1/companies/${mock.credentials.companyId}/tokens`;
    clientId = mock.credentials.clientId;
    right = basic(clientId, mock.credentials.clientSecret);
  });
  afterAll(() => mock.close());
  beforeEach(() => mock.reset());

  it('sees the caller address of a socket bound to another loopback address', async () => {
    const res = await callFrom(mock, '127.0.0.2', path, basic(clientId, 'wrong'));
    expect(res.status).toBe(401);
    expect(mock.rateLimits.peek('ip:127.0.0.2').remaining).toBe(599);
    expect(mock.rateLimits.peek('ip:127.0.0.1').remaining).toBe(600);
  });

  it('locks the attacker address after 10 wrong secrets (429 + Retry-After, even for the right one); the real client elsewhere still gets tokens', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await callFrom(mock, '127.0.0.2', path, basic(clientId, `guess-${i}`));
      expect(res.status).toBe(401);
    }
    const locked = await callFrom(mock, '127.0.0.2', path, basic(clientId, 'guess-10'));
    expect(locked.status).toBe(429);
    expect(locked.body.type).toBe('https://shipmock.dev/problems/rate-limited');
    expect(locked.headers['retry-after']).toBe('900');
    expect([locked.headers['x-ratelimit-limit'], locked.headers['x-ratelimit-remaining'], locked.headers['x-ratelimit-reset']]).toEqual(['10', '0', '900']);
    // The right secret is not even looked at while locked: it cannot confirm a guess.
    expect((await callFrom(mock, '127.0.0.2', path, right)).status).toBe(429);

    // The real client, from its own address, is untouched — and its success frees no one else.
    const real = await callFrom(mock, '127.0.0.3', path, right);
    expect(real.status).toBe(200);
    expect(real.body.accessToken).toEqual(expect.any(String));
    expect((await callFrom(mock, '127.0.0.2', path, basic(clientId, 'guess-11'))).status).toBe(429);

    // Another client id from the attacker's address is not locked.
    expect((await callFrom(mock, '127.0.0.2', '/v1/affiliates/tokens', basic('shipmock-demo-affiliate', 'guess'))).status).toBe(401);

    mock.clock.advance(15 * 60_000 - 1_000);
    const stillLocked = await callFrom(mock, '127.0.0.2', path, basic(clientId, 'guess-12'));
    expect(stillLocked.status).toBe(429);
    expect(stillLocked.headers['retry-after']).toBe('1');
    mock.clock.advance(1_000);
    expect((await callFrom(mock, '127.0.0.2', path, basic(clientId, 'guess-13'))).status).toBe(401);
    expect((await callFrom(mock, '127.0.0.2', path, right)).status).toBe(200);
  });

  it('a right secret from the same address clears that address\'s own failures', async () => {
    for (let i = 0; i < 9; i++) expect((await callFrom(mock, '127.0.0.4', path, basic(clientId, `typo-${i}`))).status).toBe(401);
    expect((await callFrom(mock, '127.0.0.4', path, right)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await callFrom(mock, '127.0.0.4', path, basic(clientId, `typo-again-${i}`))).status).toBe(401);
    expect((await callFrom(mock, '127.0.0.4', path, right)).status).toBe(429);
  });
});

describe('a forged token naming an account cannot aim that account\'s scenarios or journal', () => {
  let h: Harness;
  let victim: Awaited<ReturnType<typeof newAccount>>;
  let forged: string;
  beforeEach(async () => {
    h = createHarness();
    victim = await newAccount(h);
    forged = `Bearer ${unsignedToken({ lvl: 'ACCOUNT', cid: h.companyId, aid: victim.accountId, sub: 'shipmock-demo-client' })}`;
  });

  it('does not use up a rule scoped to the account', async () => {
    h.scenarios.activate({ name: 'one-failure', rules: [{ match: { path: '/v1/addresses' }, when: { times: 1 }, effect: { respond: { status: 503 } } }] }, { accountId: victim.accountId });
    for (let i = 0; i < 3; i++) expect((await h.http.get('/v1/addresses').set('Authorization', forged)).status).toBe(401);
    // The victim's own first request still meets the failure it scripted.
    expect((await h.http.get('/v1/addresses').set('Authorization', victim.auth)).status).toBe(503);
    expect((await h.http.get('/v1/addresses').set('Authorization', victim.auth)).status).toBe(200);
  });

  it('does not expire the account\'s real tokens through an expireToken rule', async () => {
    h.scenarios.activate({ name: 'expire-all', rules: [{ match: { path: '/v1/addresses' }, effect: { expireToken: true } }] }, { accountId: victim.accountId });
    expect((await h.http.get('/v1/addresses').set('Authorization', forged)).status).toBe(401);
    h.scenarios.deactivate('expire-all');
    expect((await h.http.get('/v1/addresses').set('Authorization', victim.auth)).status).toBe(200);
  });

  it('is not journaled as the account\'s request', async () => {
    await h.http.get('/v1/addresses').set('Authorization', forged);
    await h.http.get('/v1/addresses').set('Authorization', victim.auth);
    const entries = h.journal.find({ accountId: victim.accountId, path: '/v1/addresses' });
    expect(entries.map((e) => e.status)).toEqual([200]);
  });
});
