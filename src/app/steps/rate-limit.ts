import type { NextFunction, Request, Response } from 'express';
import type { TokenService } from '../../auth/tokens.js';
import { ProblemError } from '../../errors/problem.js';
import type { RateLimiter, RateLimitState } from '../../rate-limit/rate-limiter.js';
import { requestState } from '../request-state.js';

/**
 * Counts the request against its credential's window and sets X-RateLimit-* on the response.
 * The credential is read without verifying it (that is the auth step's job): the Basic
 * clientId, or the token's subject (account, company or affiliate), or the client address.
 * Preflights are reported, not counted.
 */
export function rateLimit(options: { limiter: RateLimiter; tokens: TokenService }) {
  return function rateLimitStep(req: Request, res: Response, next: NextFunction) {
    const key = credentialKey(req, options.tokens);
    const request = requestState(req);
    request.rateLimitKey = key;
    // A scenario's rate limit (src/scenarios) already counted this request in its own window.
    const state = request.rateLimitOverride ?? (req.method === 'OPTIONS' ? options.limiter.peek(key) : options.limiter.consume(key));
    setRateLimitHeaders(res, state);
    if (!state.limited) return next();
    // RFC 6585 §4: a 429 says how long to wait; Retry-After agrees with X-RateLimit-Reset.
    throw new ProblemError('rate-limited', {
      detail: `Rate limit of ${state.limit} requests per window exceeded; retry after ${state.resetSeconds} s`,
      headers: { 'Retry-After': String(state.resetSeconds) },
    });
  };
}

export function setRateLimitHeaders(res: Response, state: RateLimitState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit));
  res.setHeader('X-RateLimit-Remaining', String(state.remaining));
  res.setHeader('X-RateLimit-Reset', String(state.resetSeconds));
}

export function credentialKey(req: Request, tokens: TokenService): string {
  const header = req.headers.authorization;
  if (header) {
    const space = header.indexOf(' ');
    const scheme = header.slice(0, space).toLowerCase();
    const value = header.slice(space + 1).trim();
    if (scheme === 'bearer') {
      const claims = tokens.peek(value);
      if (claims?.aid) return `account:${claims.aid}`;
      if (claims?.afid) return `affiliate:${claims.afid}`;
      if (claims?.cid) return `company:${claims.cid}`;
      if (claims?.sub) return `client:${claims.sub}`;
    } else if (scheme === 'basic') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      return `client:${decoded.slice(0, decoded.indexOf(':'))}`;
    }
  }
  return `ip:${req.socket.remoteAddress ?? 'unknown'}`;
}
