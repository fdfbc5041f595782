import { ok, type HandlerMap } from '../shared/operation-handler.js';
import type { TokenIssuer } from './service.js';

export function tokenRoutes(tokens: TokenIssuer): HandlerMap {
  return {
    issueCompanyToken: (ctx) => ok(tokens.issueCompany(ctx.principal, ctx.path['company-id'])),
    issueAccountToken: (ctx) => ok(tokens.issueAccount(ctx.principal, ctx.path['account-id'])),
    issueAffiliateToken: (ctx) => ok(tokens.issueAffiliate(ctx.principal)),
  };
}
