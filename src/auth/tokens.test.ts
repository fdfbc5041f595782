import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTokenService } from './tokens.js';

const HOUR = 3_600_000;

function setUp(secret = 'test-secret') {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const tokens = createTokenService({ secret, now: () => now });
  return { tokens, advance: (ms: number) => (now += ms), now: () => now };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64url');

describe('token service', () => {
  it('signs a JWT (HS256) whose claims verify, with iat/exp in seconds and the expiry in ms', () => {
    const t = setUp();
    const { token, expiresAt } = t.tokens.sign({ lvl: 'ACCOUNT', cid: 'c1', aid: 'a1', sub: 'client' }, 4 * HOUR);
    const [header, payload] = token.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toMatchObject({ lvl: 'ACCOUNT', cid: 'c1', aid: 'a1', sub: 'client', expMs: expiresAt, exp: Math.floor(expiresAt / 1000), iat: Math.floor(t.now() / 1000) });
    expect(expiresAt).toBe(t.now() + 4 * HOUR);
    expect(t.tokens.verify(token)).toEqual({ ok: true, claims });
  });

  it('expires on the injected clock, also for a token whose signature was checked before', () => {
    const t = setUp();
    const { token } = t.tokens.sign({ lvl: 'COMPANY', cid: 'c1', sub: 'client' }, HOUR);
    expect(t.tokens.verify(token).ok).toBe(true);
    t.advance(HOUR - 1);
    expect(t.tokens.verify(token).ok).toBe(true);
    t.advance(1);
    expect(t.tokens.verify(token)).toEqual({ ok: false, reason: 'the token expired at 2026-01-01T01:00:00.000Z' });
  });

  it('refuses a token of another secret, a changed payload and a changed signature', () => {
    const t = setUp();
    const foreign = setUp('another-secret').tokens.sign({ lvl: 'ADMIN', sub: 'x' }, HOUR).token;
    expect(t.tokens.verify(foreign)).toEqual({ ok: false, reason: 'the token signature is not valid for this service' });

    const { token } = t.tokens.sign({ lvl: 'ACCOUNT', aid: 'a1', sub: 'client' }, HOUR);
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const escalated = `${header}.${b64({ ...claims, lvl: 'ADMIN' })}.${signature}`;
    expect(t.tokens.verify(escalated).ok).toBe(false);
    expect(t.tokens.verify(`${header}.${payload}.${signature.slice(0, -2)}AA`).ok).toBe(false);
  });

  it('refuses the alg=none trick and any header but its own, even when signed with the secret', () => {
    const t = setUp();
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ lvl: 'ADMIN', sub: 'x', expMs: Date.now() * 2 })}.`;
    expect(t.tokens.verify(none)).toEqual({ ok: false, reason: 'the token is malformed' });
    const otherHeader = b64({ typ: 'JWT', alg: 'HS256' });
    const body = `${otherHeader}.${b64({ lvl: 'ADMIN', sub: 'x', expMs: Date.now() * 2 })}`;
    expect(t.tokens.verify(`${body}.${sign('test-secret', body)}`)).toEqual({ ok: false, reason: 'the token is malformed' });
  });

  it('refuses malformed tokens without throwing', () => {
    const t = setUp();
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const signed = (payload: string) => `${header}.${payload}.${sign('test-secret', `${header}.${payload}`)}`;
    for (const token of ['', 'abc', 'a.b', 'a.b.c.d', `${header}..`, signed('not-base64-json'), signed(b64({ lvl: 'ADMIN' })), signed(b64('a string'))]) {
      expect(t.tokens.verify(token), token).toMatchObject({ ok: false });
    }
  });

  it('gives every token its own id, also two issued in the same millisecond', () => {
    const t = setUp();
    const claims = { lvl: 'COMPANY' as const, cid: 'c1', sub: 'client' };
    const a = t.tokens.sign(claims, HOUR).token;
    const b = t.tokens.sign(claims, HOUR).token;
    expect(a).not.toBe(b);
    expect(t.tokens.peek(a)?.jti).not.toBe(t.tokens.peek(b)?.jti);
  });

  it('peeks at claims without checking them, and at nothing in garbage', () => {
    const t = setUp();
    const forged = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ lvl: 'ACCOUNT', aid: 'victim' })}.bad`;
    expect(t.tokens.peek(forged)).toEqual({ lvl: 'ACCOUNT', aid: 'victim' });
    expect(t.tokens.peek('garbage')).toBeUndefined();
    expect(t.tokens.peek('a.%%%.c')).toBeUndefined();
  });
});
