import { created, noContent, ok, type HandlerMap, type ParamsIn } from '../shared/operation-handler.js';
import type { Principal } from '../../auth/principal.js';
import { ProblemError } from '../../errors/problem.js';
import { pageArgs } from '../shared/crud-routes.js';
import type { Account } from './model.js';
import type { AccountService } from './service.js';

/** The company a request acts for; account operations accept only Company tokens. */
function companyOf(principal: Principal): string {
  if (!principal.companyId) throw new ProblemError('forbidden', { detail: 'This operation needs a Company token' });
  return principal.companyId;
}

const accountId = (ctx: { path: { 'account-id': string } }) => ctx.path['account-id'];

function listFilter(query: ParamsIn<'listAccounts', 'query'>): ((account: Account) => boolean) | undefined {
  const { enabled, type } = query;
  if (enabled === undefined && type === undefined) return undefined;
  return (a) => (enabled === undefined || a.enabled === enabled) && (type === undefined || a.type === type);
}

export function accountRoutes(accounts: AccountService): HandlerMap {
  return {
    createAccount: (ctx) => created(accounts.create(companyOf(ctx.principal), ctx.body).id),
    listAccounts: (ctx) => ok(accounts.list(companyOf(ctx.principal), { ...pageArgs(ctx.query), filter: listFilter(ctx.query) })),
    getAccount: (ctx) => ok(accounts.get(companyOf(ctx.principal), accountId(ctx))),
    replaceAccount: (ctx) => {
      accounts.replace(companyOf(ctx.principal), accountId(ctx), ctx.body);
      return noContent();
    },
    deleteAccount: (ctx) => {
      accounts.remove(companyOf(ctx.principal), accountId(ctx));
      return noContent();
    },
  };
}
