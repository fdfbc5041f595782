import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClock } from '../../clock/clock.js';
import type { ProblemError } from '../../errors/problem.js';
import { requestState } from '../../http/request-state.js';
import { createLogger } from '../../logging/logger.js';
import type { Caller } from '../../rate-limit/callers.js';
import { createLoginLockout } from '../../rate-limit/login-lockout.js';
import { createRateLimiter } from '../../rate-limit/rate-limiter.js';
import { rateLimit } from './rate-limit.js';
import { requestId } from './request-id.js';

const started = requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 });

/** The step with a limit of 2 per minute on a manual clock; `caller` says who each request is. */
function limited(caller: () => Caller) {
  const clock = createClock({ mode: 'manual' });
  const limiter = createRateLimiter({ clock, limit: 2, windowMs: 60_000 });
  const lockout = createLoginLockout({ clock, failures: 2, windowMs: 60_000 });
  const step = rateLimit({ limiter, lockout, callers: { identify: caller } });
  const send = (method = 'GET', setUp: (req: IncomingMessage) => void = () => {}) => {
    const req = Object.assign(new IncomingMessage(new Socket()), { method, url: '/v1/addresses', headers: {} });
    const res = new ServerResponse(req);
    started(req, res, () => {});
    setUp(req);
    let outcome: 'next' | ProblemError = 'next';
    try {
      step(req, res, () => {});
    } catch (error) {
      outcome = error as ProblemError;
    }
    return { outcome, state: requestState(req) };
  };
  return { send, limiter, lockout, clock };
}

describe('rateLimit step', () => {
  it("counts each request in its caller's window, reports it, and answers 429 with Retry-After once it is used up", () => {
    const { send } = limited(() => ({ key: 'account:a1', verified: true }));
    expect(send()).toMatchObject({ outcome: 'next', state: { rateLimitKey: 'account:a1', rateLimit: { limit: 2, remaining: 1 } } });
    expect(send().outcome).toBe('next');
    const { outcome, state } = send();
    expect(outcome).toMatchObject({ slug: 'rate-limited', status: 429, init: { headers: { 'Retry-After': '60' } } });
    expect((outcome as ProblemError).message).toMatch(/^Rate limit of 2 requests per window exceeded; retry after 60 s\. Start shipmock with --rate-limit/);
    expect(state.rateLimit).toMatchObject({ remaining: 0, limited: true });
  });

  it('tells a caller without a valid credential that it is counted per address', () => {
    const { send } = limited(() => ({ key: 'ip:203.0.113.7', verified: false }));
    send();
    send();
    expect((send().outcome as ProblemError).message).toContain('counted per address');
  });

  it('reports a preflight without counting it', () => {
    const { send, limiter } = limited(() => ({ key: 'account:a1', verified: true }));
    expect(send('OPTIONS')).toMatchObject({ outcome: 'next', state: { rateLimit: { remaining: 2 } } });
    expect(limiter.peek('account:a1').remaining).toBe(2);
  });

  it("takes a scenario's own window instead, and names the scenario in the 429", () => {
    const { send, limiter } = limited(() => ({ key: 'account:a1', verified: true }));
    const override = { limit: 1, remaining: 0, resetSeconds: 30, limited: true };
    const { outcome } = send('GET', (req) => Object.assign(requestState(req), { rateLimitOverride: override, scenarioHits: ['rate-limit-burst/1'] }));
    expect((outcome as ProblemError).message).toContain('the scenario rate-limit-burst/1');
    expect(limiter.peek('account:a1').remaining).toBe(2);
  });

  it('locks a client id from one address after too many wrong secrets (429 naming it), and a right secret clears the failures', () => {
    let outcome: 'refused' | 'accepted' = 'refused';
    const { send, lockout } = limited(() => {
      const lock = lockout.locked('c1', '127.0.0.1');
      return { key: 'ip:127.0.0.1', verified: false, login: lock ? { clientId: 'c1', address: '127.0.0.1', outcome: 'locked', lock } : { clientId: 'c1', address: '127.0.0.1', outcome } };
    });
    expect(send().outcome).toBe('next');
    expect(lockout.locked('c1', '127.0.0.1')).toBeUndefined();
    expect(send().outcome).toBe('next');
    const { outcome: locked, state } = send();
    expect(locked).toMatchObject({ slug: 'rate-limited', status: 429 });
    expect((locked as ProblemError).message).toMatch(/^Too many failed client-credential attempts for this client id from this address; retry after \d+ s$/);
    expect(state.rateLimit).toEqual(lockout.locked('c1', '127.0.0.1'));

    const other = limited(() => ({ key: 'ip:127.0.0.1', verified: false, login: { clientId: 'c1', address: '127.0.0.1', outcome } }));
    other.send();
    outcome = 'accepted';
    other.send();
    outcome = 'refused';
    expect(other.send().outcome).toMatchObject({ slug: 'rate-limited' }); // the address window (2), not the lock
    expect(other.lockout.locked('c1', '127.0.0.1')).toBeUndefined();
  });
});
