import type { Clock } from '../clock/clock.js';
import type { TokenClaims, TokenService } from '../auth/tokens.js';
import { exportedAs, type StateRegistry } from '../store/state-registry.js';

/**
 * Tokens a scenario declared expired before their time ("token expiry mid-flow"). Tokens are
 * self-contained (spec, Authentication §6), so expiry is forced by remembering what to refuse:
 * the exact tokens that were presented when the scenario fired, and every token of the same
 * subject (account, affiliate or company) issued in an earlier second.
 */
export interface TokenRevocations {
  /** Expires this token now, and every earlier token of its subject. */
  expire(token: string, claims: Partial<TokenClaims>): void;
  /** The epoch ms at which the token was made to expire, or undefined. */
  expiredAt(token: string, claims: Partial<TokenClaims>): number | undefined;
  /** Forgets the revocations of one account (its reset), or all. */
  clear(accountId?: string): void;
  snapshot(): TokenRevocationsSnapshot;
  restore(snapshot: TokenRevocationsSnapshot): void;
}

export interface TokenRevocationsSnapshot {
  /** Token signature → when it was expired (epoch ms) and its subject. */
  tokens: Record<string, { at: number; subject?: string }>;
  /** Subject key → { epoch ms of the expiry }; tokens of that subject issued in an earlier second are expired. */
  subjects: Record<string, number>;
}

/** Keeps the lists bounded: a long QA session must not grow memory without end. */
const MAX_TOKENS = 10_000;

export function subjectOf(claims: Partial<TokenClaims>): string | undefined {
  if (claims.aid) return `account:${claims.aid}`;
  if (claims.afid) return `affiliate:${claims.afid}`;
  if (claims.lvl === 'COMPANY' && claims.cid) return `company:${claims.cid}`;
  if (claims.sub) return `client:${claims.sub}`;
  return undefined;
}

const signatureOf = (token: string) => token.slice(token.lastIndexOf('.') + 1);

/** @example const revocations = createTokenRevocations(clock, store.parts); revocations.expire(token, claims) */
export function createTokenRevocations(clock: Clock, parts?: StateRegistry): TokenRevocations {
  const tokens = new Map<string, { at: number; subject?: string }>();
  const subjects = new Map<string, number>();

  const revocations: TokenRevocations = {
    expire(token, claims) {
      const now = clock.now();
      if (tokens.size >= MAX_TOKENS) tokens.delete(tokens.keys().next().value!);
      const subject = subjectOf(claims);
      tokens.set(signatureOf(token), { at: now, subject });
      if (subject) subjects.set(subject, now);
    },
    expiredAt(token, claims) {
      const exact = tokens.get(signatureOf(token));
      if (exact !== undefined) return exact.at;
      const subject = subjectOf(claims);
      const since = subject ? subjects.get(subject) : undefined;
      // iat has second precision: only tokens from an earlier second are surely older.
      if (since !== undefined && typeof claims.iat === 'number' && claims.iat < Math.floor(since / 1000)) return since;
      return undefined;
    },
    clear(accountId) {
      if (accountId === undefined) {
        tokens.clear();
        subjects.clear();
      } else {
        const subject = `account:${accountId}`;
        subjects.delete(subject);
        for (const [signature, entry] of tokens) if (entry.subject === subject) tokens.delete(signature);
      }
    },
    snapshot: () => ({ tokens: Object.fromEntries(tokens), subjects: Object.fromEntries(subjects) }),
    restore(snapshot) {
      tokens.clear();
      subjects.clear();
      for (const [k, v] of Object.entries(snapshot.tokens ?? {})) tokens.set(k, v);
      for (const [k, v] of Object.entries(snapshot.subjects ?? {})) subjects.set(k, v);
    },
  };
  parts?.register({
    name: 'token-revocations',
    description: 'tokens a scenario expired before their time',
    durable: true,
    storage: 'value',
    sharing: 'shared',
    reset: 'per-account',
    snapshot: revocations.snapshot,
    restore: revocations.restore,
    clear: revocations.clear,
    exported: exportedAs('tokenRevocations', revocations.snapshot, revocations.restore),
  });
  return revocations;
}

/**
 * The token service with forced expiry applied: `verify` refuses a revoked token exactly as it
 * refuses a naturally expired one, so clients see the same 401 `invalid-token`.
 *
 * @example runtime.tokens = withRevocations(createTokenService({ now: clock.now }), revocations)
 */
export function withRevocations(tokens: TokenService, revocations: TokenRevocations): TokenService {
  return {
    ...tokens,
    verify(token) {
      const result = tokens.verify(token);
      if (!result.ok) return result;
      const at = revocations.expiredAt(token, result.claims);
      if (at === undefined) return result;
      return { ok: false, reason: `the token expired at ${new Date(at).toISOString()}` };
    },
  };
}
