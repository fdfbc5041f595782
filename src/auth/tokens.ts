import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signed, self-contained bearer tokens (JWT, HS256). The service keeps no server-side
 * sessions (spec, Authentication §6): everything needed to authorise a call is in the token.
 * Hand-written rather than jose/jsonwebtoken: one algorithm, expiry on the mock's virtual clock
 * (time travel), and a cache of verified signatures that keeps an HMAC off every request.
 */
export type TokenLevel = 'COMPANY' | 'ACCOUNT' | 'AFFILIATE' | 'ADMIN';

export interface TokenClaims {
  /** level */
  lvl: TokenLevel;
  /** company id */
  cid?: string;
  /** account id (ACCOUNT tokens) */
  aid?: string;
  /** affiliate id (AFFILIATE tokens) */
  afid?: string;
  /** client id the token was issued to */
  sub: string;
  /** issued at / expires at, epoch seconds (JWT convention) */
  iat: number;
  exp: number;
  /** expiry in epoch ms, as the token endpoint reports it */
  expMs: number;
  /**
   * Token id, unique per instance: two tokens issued in the same virtual millisecond differ, so a
   * scenario can expire the one in use without touching its successor (src/scenarios/token-revocations.ts).
   */
  jti?: number;
}

export interface TokenService {
  sign(claims: Omit<TokenClaims, 'iat' | 'exp' | 'expMs' | 'jti'>, lifetimeMs: number): { token: string; expiresAt: number };
  /** Returns the claims, or the reason the token is not acceptable. */
  verify(token: string): { ok: true; claims: TokenClaims } | { ok: false; reason: string };
  /** Reads claims without checking signature or expiry (rate-limit keys only). */
  peek(token: string): Partial<TokenClaims> | undefined;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * @example
 * const tokens = createTokenService({ secret: 'dev', now: clock.now });
 * const { token } = tokens.sign({ lvl: 'COMPANY', cid, sub: clientId }, 4 * 3600_000);
 */
export function createTokenService(options: { secret?: string | (() => string); now: () => number }): TokenService {
  // A per-instance secret unless fixed: tokens of another instance are "foreign-signed". A
  // function is asked on every use (the runtime's registered secret, given back by a durable store).
  const fixed = typeof options.secret === 'function' ? undefined : (options.secret ?? randomBytes(32).toString('hex'));
  const secretOf = typeof options.secret === 'function' ? options.secret : () => fixed!;
  const mac = (input: string) => createHmac('sha256', secretOf()).update(input).digest();
  let issued = 0;
  // Signature checks of tokens already seen: a client sends the same token on every call, and
  // an HMAC plus a JSON parse per request showed up in the hot path. Only valid signatures are
  // remembered (bounded); expiry is still checked on every call against the virtual clock.
  const verified = new Map<string, TokenClaims>();
  const VERIFIED_CAP = 10_000;

  function peek(token: string): Partial<TokenClaims> | undefined {
    const known = verified.get(token);
    if (known) return known;
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
      return claims && typeof claims === 'object' ? claims : undefined;
    } catch {
      return undefined;
    }
  }

  function checkExpiry(claims: TokenClaims): { ok: true; claims: TokenClaims } | { ok: false; reason: string } {
    if (options.now() >= claims.expMs) return { ok: false, reason: `the token expired at ${new Date(claims.expMs).toISOString()}` };
    return { ok: true, claims };
  }

  return {
    sign(claims, lifetimeMs) {
      const nowMs = options.now();
      const expiresAt = nowMs + lifetimeMs;
      const full: TokenClaims = { ...claims, iat: Math.floor(nowMs / 1000), exp: Math.floor(expiresAt / 1000), expMs: expiresAt, jti: ++issued };
      const body = `${HEADER}.${Buffer.from(JSON.stringify(full)).toString('base64url')}`;
      return { token: `${body}.${mac(body).toString('base64url')}`, expiresAt };
    },
    verify(token) {
      const known = verified.get(token);
      if (known) return checkExpiry(known);
      const parts = token.split('.');
      if (parts.length !== 3 || parts[0] !== HEADER) return { ok: false, reason: 'the token is malformed' };
      const expected = mac(`${parts[0]}.${parts[1]}`);
      const given = Buffer.from(parts[2], 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return { ok: false, reason: 'the token signature is not valid for this service' };
      }
      const claims = peek(token) as TokenClaims | undefined;
      if (!claims || typeof claims.expMs !== 'number' || typeof claims.lvl !== 'string') {
        return { ok: false, reason: 'the token is malformed' };
      }
      if (verified.size >= VERIFIED_CAP) verified.clear();
      verified.set(token, claims);
      return checkExpiry(claims);
    },
    peek,
  };
}
