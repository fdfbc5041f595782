import { created, noContent, ok, type HandlerMap, type OperationContext } from './operation-handler.js';
import type { Principal } from '../../http/request-state.js';
import { ProblemError } from '../../errors/problem.js';
import type { Entity } from '../../store/collection.js';
import type { AccountResources } from './account-resources.js';

/** The account a request acts for; account-scoped operations only accept Account tokens. */
export function accountOf(principal: Principal): string {
  if (!principal.accountId) throw new ProblemError('forbidden', { detail: 'This operation needs an Account token' });
  return principal.accountId;
}

/** Cursor-page arguments from the contract's Limit/Sort/Cursor parameters (defaults applied by validation). */
export function pageArgs(query: Record<string, any>) {
  return { limit: query.limit as number, sort: query.sort as 'ASC' | 'DESC', cursor: query.cursor as string | undefined };
}

export interface CrudOperationIds {
  create?: string;
  list?: string;
  get?: string;
  replace?: string;
  remove?: string;
}

/**
 * Routes for a plain account-scoped CRUD family. `filter` maps list query parameters to a
 * predicate; `idParam` is the path parameter's name in the contract.
 * @example crudRoutes(addresses, { create: 'createAddress', … }, { idParam: 'address-id' })
 */
export function crudRoutes<Input, Resource extends Entity>(
  resources: AccountResources<Input, Resource>,
  ids: CrudOperationIds,
  options: { idParam: string; filter?: (query: Record<string, any>) => ((item: Resource) => boolean) | undefined },
): HandlerMap {
  const handlers: HandlerMap = {};
  const id = (ctx: OperationContext) => ctx.path[options.idParam] as string;
  if (ids.create) handlers[ids.create] = (ctx) => created(resources.create(accountOf(ctx.principal), ctx.body).id);
  if (ids.list) {
    handlers[ids.list] = (ctx) =>
      ok(resources.list(accountOf(ctx.principal), { ...pageArgs(ctx.query), filter: options.filter?.(ctx.query) }));
  }
  if (ids.get) handlers[ids.get] = (ctx) => ok(resources.get(accountOf(ctx.principal), id(ctx)));
  if (ids.replace) {
    handlers[ids.replace] = (ctx) => {
      resources.replace(accountOf(ctx.principal), id(ctx), ctx.body);
      return noContent();
    };
  }
  if (ids.remove) {
    handlers[ids.remove] = (ctx) => {
      resources.remove(accountOf(ctx.principal), id(ctx));
      return noContent();
    };
  }
  return handlers;
}
