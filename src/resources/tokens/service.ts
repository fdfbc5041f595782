import type { Principal } from '../../auth/principal.js';
import type { DomainDeps } from '../shared/domain-deps.js';
import type { TokenClaims } from '../../auth/tokens.js';
import { ProblemError } from '../../errors/problem.js';
import type { AccountService } from '../accounts/service.js';

/** The token endpoints' answer (contract AuthorizationResponse). */
export interface IssuedToken {
  accessToken: string;
  expiresAt: number;
  tokenType: 'Bearer';
}

/**
 * Issues the spec's bearer tokens (Authentication §1–6) from client credentials. Every refusal
 * is 401, never 404: the token endpoints list no 404 and a 401 does not reveal whether a
 * company or account exists (contract/DECISIONS.md, "Token issuing failures").
 *
 * @example
 * tokens.issueCompany(principal, companyId) // { accessToken, expiresAt, tokenType: 'Bearer' }
 */
export function createTokenIssuer(core: Pick<DomainDeps, 'tokens' | 'tokenLifetimes'>, accounts: AccountService) {
  const lifetimes = core.tokenLifetimes;

  function issue(claims: Omit<TokenClaims, 'iat' | 'exp' | 'expMs'>, lifetimeMs: number): IssuedToken {
    const { token, expiresAt } = core.tokens.sign(claims, lifetimeMs);
    return { accessToken: token, expiresAt, tokenType: 'Bearer' };
  }

  const refuse = (detail: string) => new ProblemError('invalid-credentials', { detail });

  return {
    /** POST /v1/companies/{company-id}/tokens: the credentials must be that company's. */
    issueCompany(principal: Principal, companyId: string): IssuedToken {
      if (principal.level !== 'COMPANY' || principal.companyId !== companyId) {
        throw refuse(`These client credentials cannot issue tokens for company ${companyId}`);
      }
      return issue({ lvl: 'COMPANY', cid: companyId, sub: principal.clientId }, lifetimes.company);
    },

    /** POST /v1/accounts/{account-id}/tokens: an existing, enabled account of the credentials' company. */
    issueAccount(principal: Principal, accountId: string): IssuedToken {
      const owned = principal.level === 'COMPANY' ? accounts.lookup(accountId) : undefined;
      if (!owned || owned.companyId !== principal.companyId || !owned.account.enabled) {
        // One message for unknown, foreign, expired and disabled: nothing about existence leaks.
        throw refuse(`These client credentials cannot issue tokens for account ${accountId} (it must exist, be enabled and belong to their company)`);
      }
      return issue({ lvl: 'ACCOUNT', cid: owned.companyId, aid: accountId, sub: principal.clientId }, lifetimes.account);
    },

    /** POST /v1/affiliates/tokens: the affiliate is the one the credentials belong to. */
    issueAffiliate(principal: Principal): IssuedToken {
      if (principal.level !== 'AFFILIATE' || !principal.affiliateId) {
        throw refuse('Affiliate tokens are issued only for affiliate client credentials');
      }
      return issue({ lvl: 'AFFILIATE', afid: principal.affiliateId, sub: principal.clientId }, lifetimes.affiliate);
    },

    /** An ADMIN token for tests and QA (control plane POST /__admin/tokens). */
    issueAdmin(clientId = 'shipmock-control-plane'): IssuedToken {
      return issue({ lvl: 'ADMIN', sub: clientId }, lifetimes.admin);
    },
  };
}

export type TokenIssuer = ReturnType<typeof createTokenIssuer>;
