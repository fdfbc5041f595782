import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createCredentialRegistry } from '../../auth/credentials.js';
import { createTokenService } from '../../auth/tokens.js';
import type { ContractOperation } from '../../contract/load-contract.js';
import { ProblemError } from '../../errors/problem.js';
import { requestState } from '../../http/request-state.js';
import type { Principal } from '../../auth/principal.js';
import { createLogger } from '../../logging/logger.js';
import { authenticate } from './authenticate.js';
import { requestId } from './request-id.js';

const started = requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 });
let now = Date.parse('2026-01-01T00:00:00Z');
const tokens = createTokenService({ secret: 'unit', now: () => now });
const credentials = createCredentialRegistry({
  companies: [{ companyId: 'c1', name: 'Muster GmbH', clientId: 'muster', clientSecret: 'right' }],
  affiliates: [{ affiliateId: 'f1', name: 'Partner', clientId: 'partner', clientSecret: 'p' }],
});
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const bearer = (claims: Parameters<typeof tokens.sign>[0], lifetimeMs = 60_000) => `Bearer ${tokens.sign(claims, lifetimeMs).token}`;

/** The step on an operation accepting `security`; the principal it set, or the problem it threw. */
function check(security: string[], authorization?: string, checkPrincipal?: (p: Principal) => ProblemError | undefined): Principal | ProblemError | 'no principal' {
  const req = Object.assign(new IncomingMessage(new Socket()), { method: 'GET', url: '/v1/addresses', headers: authorization ? { authorization } : {} });
  const res = new ServerResponse(req);
  started(req, res, () => {});
  requestState(req).operation = { operationId: 'op', security } as unknown as ContractOperation;
  try {
    authenticate({ tokens, credentials, checkPrincipal })(req, res, () => {});
  } catch (error) {
    return error as ProblemError;
  }
  return requestState(req).principal ?? 'no principal';
}

describe('authenticate step', () => {
  it('lets an operation without security through without a principal', () => {
    expect(check([])).toBe('no principal');
  });

  it('takes a token of an accepted level as the principal', () => {
    expect(check(['AccountToken'], bearer({ lvl: 'ACCOUNT', cid: 'c1', aid: 'a1', sub: 'muster' }))).toEqual({ via: 'token', level: 'ACCOUNT', companyId: 'c1', accountId: 'a1', affiliateId: undefined, clientId: 'muster' });
  });

  it('answers 401 to no header, an unknown scheme, garbage, a foreign signature and an expired token', () => {
    const foreign = `Bearer ${createTokenService({ secret: 'other', now: () => now }).sign({ lvl: 'COMPANY', cid: 'c1', sub: 'muster' }, 60_000).token}`;
    const expiring = bearer({ lvl: 'COMPANY', cid: 'c1', sub: 'muster' }, 1);
    now += 1;
    expect(check(['CompanyToken'])).toMatchObject({ slug: 'unauthorized', message: 'This operation needs an Authorization header (CompanyToken)' });
    expect(check(['CompanyToken'], 'Digest abc')).toMatchObject({ slug: 'unauthorized', status: 401 });
    for (const authorization of ['Bearer garbage', foreign, expiring]) expect(check(['CompanyToken'], authorization)).toMatchObject({ slug: 'invalid-token', status: 401 });
  });

  it('answers 403 to a valid token of another level, naming both', () => {
    expect(check(['AccountToken'], bearer({ lvl: 'COMPANY', cid: 'c1', sub: 'muster' }))).toMatchObject({
      slug: 'forbidden',
      status: 403,
      message: 'This operation accepts AccountToken; the request carries a Company token',
    });
  });

  it('accepts client credentials only where the operation lists them, and refuses a wrong secret', () => {
    expect(check(['ClientCredentials'], basic('muster', 'right'))).toEqual({ via: 'client-credentials', level: 'COMPANY', companyId: 'c1', clientId: 'muster' });
    expect(check(['ClientCredentials'], basic('partner', 'p'))).toEqual({ via: 'client-credentials', level: 'AFFILIATE', affiliateId: 'f1', clientId: 'partner' });
    expect(check(['ClientCredentials'], basic('muster', 'wrong'))).toMatchObject({ slug: 'invalid-credentials', status: 401 });
    expect(check(['CompanyToken'], basic('muster', 'right'))).toMatchObject({ slug: 'unauthorized', message: expect.stringMatching(/^Client credentials are not accepted here/) });
  });

  it('answers the problem the principal check finds (e.g. a deleted account)', () => {
    const gone = new ProblemError('invalid-token', { detail: 'the account was deleted' });
    expect(check(['AccountToken'], bearer({ lvl: 'ACCOUNT', cid: 'c1', aid: 'a1', sub: 'muster' }), () => gone)).toBe(gone);
  });
});
