import type { NextFunction, Request, Response } from 'express';
import type { CredentialRegistry } from '../../auth/credentials.js';
import type { TokenService } from '../../auth/tokens.js';
import type { SecuritySchemeName } from '../../contract/load-contract.js';
import { ProblemError } from '../../errors/problem.js';
import { requestState, type Principal, type PrincipalLevel } from '../request-state.js';

const SCHEME_OF_LEVEL: Record<PrincipalLevel, SecuritySchemeName> = {
  COMPANY: 'CompanyToken',
  ACCOUNT: 'AccountToken',
  AFFILIATE: 'AffiliateToken',
  ADMIN: 'AdminToken',
};

const LEVEL_NAMES: Record<PrincipalLevel, string> = {
  COMPANY: 'a Company token',
  ACCOUNT: 'an Account token',
  AFFILIATE: 'an Affiliate token',
  ADMIN: 'an Admin token',
};

export interface AuthenticateOptions {
  tokens: TokenService;
  credentials: CredentialRegistry;
  /**
   * Checks that the principal still stands (its account exists, is enabled, not expired).
   * Returns the problem to answer, or undefined. Supplied by the accounts family.
   */
  checkPrincipal?: (principal: Principal) => ProblemError | undefined;
}

/**
 * Checks the caller against the operation's `security` in the contract:
 * nothing, garbage, expired or foreign-signed → 401; a valid token of a level the operation
 * does not accept → 403; Basic client credentials only where ClientCredentials is listed.
 */
export function authenticate(options: AuthenticateOptions) {
  return function authenticateStep(req: Request, _res: Response, next: NextFunction) {
    const state = requestState(req);
    const accepted = state.operation!.security;
    if (accepted.length === 0) return next();
    const principal = identify(req.headers.authorization, accepted, options);
    const problem = options.checkPrincipal?.(principal);
    if (problem) throw problem;
    state.principal = principal;
    next();
  };
}

function describe(accepted: SecuritySchemeName[]): string {
  return accepted.join(' or ');
}

function identify(header: string | undefined, accepted: SecuritySchemeName[], options: AuthenticateOptions): Principal {
  if (!header) {
    throw new ProblemError('unauthorized', { detail: `This operation needs an Authorization header (${describe(accepted)})` });
  }
  const space = header.indexOf(' ');
  const scheme = space === -1 ? header.toLowerCase() : header.slice(0, space).toLowerCase();
  const value = space === -1 ? '' : header.slice(space + 1).trim();

  if (scheme === 'basic') {
    if (!accepted.includes('ClientCredentials')) {
      throw new ProblemError('unauthorized', {
        detail: `Client credentials are not accepted here; send Authorization: Bearer <token> (${describe(accepted)})`,
      });
    }
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const identity = colon > 0 ? options.credentials.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1)) : undefined;
    if (!identity) throw new ProblemError('invalid-credentials', { detail: 'The client id or client secret is wrong' });
    switch (identity.kind) {
      case 'company':
        return { via: 'client-credentials', level: 'COMPANY', companyId: identity.credentials.companyId, clientId: identity.credentials.clientId };
      case 'affiliate':
        return { via: 'client-credentials', level: 'AFFILIATE', affiliateId: identity.credentials.affiliateId, clientId: identity.credentials.clientId };
      case 'admin':
        return { via: 'client-credentials', level: 'ADMIN', clientId: identity.credentials.clientId };
    }
  }

  if (scheme !== 'bearer' || !value) {
    throw new ProblemError('unauthorized', { detail: `Unsupported Authorization scheme; expected ${describe(accepted)}` });
  }
  const verified = options.tokens.verify(value);
  if (!verified.ok) throw new ProblemError('invalid-token', { detail: `${verified.reason}; request a new token` });
  const { claims } = verified;
  if (!accepted.includes(SCHEME_OF_LEVEL[claims.lvl])) {
    throw new ProblemError('forbidden', {
      detail: `This operation accepts ${describe(accepted)}; the request carries ${LEVEL_NAMES[claims.lvl]}`,
    });
  }
  return {
    via: 'token',
    level: claims.lvl,
    companyId: claims.cid,
    accountId: claims.aid,
    affiliateId: claims.afid,
    clientId: claims.sub,
  };
}
