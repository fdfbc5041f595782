import type { Authorization } from '../../auth/authorization.js';
import type { CredentialRegistry } from '../../auth/credentials.js';
import type { TokenService } from '../../auth/tokens.js';
import type { SecuritySchemeName } from '../../contract/load-contract.js';
import { ProblemError } from '../../errors/problem.js';
import type { Principal, PrincipalLevel } from '../../auth/principal.js';
import { authorizationOf, requestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';

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
  return function authenticateStep(req: ApiRequest, _res: ApiResponse, next: Next) {
    const state = requestState(req);
    const accepted = state.operation!.security;
    if (accepted.length === 0) return next();
    const principal = identify(authorizationOf(req), accepted, options);
    const problem = options.checkPrincipal?.(principal);
    if (problem) throw problem;
    state.principal = principal;
    next();
  };
}

function describe(accepted: SecuritySchemeName[]): string {
  return accepted.join(' or ');
}

function identify(authorization: Authorization, accepted: SecuritySchemeName[], options: AuthenticateOptions): Principal {
  if (authorization.scheme === 'none') {
    throw new ProblemError('unauthorized', { detail: `This operation needs an Authorization header (${describe(accepted)})` });
  }
  if (authorization.scheme === 'basic') {
    if (!accepted.includes('ClientCredentials')) {
      throw new ProblemError('unauthorized', {
        detail: `Client credentials are not accepted here; send Authorization: Bearer <token> (${describe(accepted)})`,
      });
    }
    const { credentials } = authorization;
    const identity = credentials ? options.credentials.authenticate(credentials.clientId, credentials.clientSecret) : undefined;
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

  if (authorization.scheme !== 'bearer' || !authorization.token) {
    throw new ProblemError('unauthorized', { detail: `Unsupported Authorization scheme; expected ${describe(accepted)}` });
  }
  const verified = options.tokens.verify(authorization.token);
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
