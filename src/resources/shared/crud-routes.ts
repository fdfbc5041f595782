import { created, noContent, ok, type BodyOf, type CheckedContext, type HandlerMap, type OperationId, type OperationResult, type ParamsIn } from './operation-handler.js';
import type { Principal } from '../../auth/principal.js';
import { ProblemError } from '../../errors/problem.js';
import type { Entity } from '../../store/collection.js';
import type { AccountResources } from './account-resources.js';

/** The account a request acts for; account-scoped operations only accept Account tokens. */
export function accountOf(principal: Principal): string {
  if (!principal.accountId) throw new ProblemError('forbidden', { detail: 'This operation needs an Account token' });
  return principal.accountId;
}

/** Cursor-page arguments from the contract's Limit/Sort/Cursor parameters (defaults applied by validation). */
export function pageArgs(query: { limit?: number; sort?: 'ASC' | 'DESC'; cursor?: string }) {
  return { limit: query.limit as number, sort: query.sort as 'ASC' | 'DESC', cursor: query.cursor };
}

/** The operations whose JSON body is a `Body`. */
type IdsTaking<Body> = { [Id in OperationId]: [BodyOf<Id>] extends [Body] ? Id : never }[OperationId];
/** The operations with a path parameter named `Param`. */
type IdsWithPath<Param extends string> = { [Id in OperationId]: Param extends keyof ParamsIn<Id, 'path'> ? Id : never }[OperationId];

export interface CrudOperationIds<Input, Param extends string, List extends OperationId> {
  create?: IdsTaking<Input>;
  list?: List;
  get?: IdsWithPath<Param>;
  replace?: IdsTaking<Input> & IdsWithPath<Param>;
  remove?: IdsWithPath<Param>;
}

/**
 * Routes for a plain account-scoped CRUD family. `filter` maps list query parameters to a
 * predicate; `idParam` is the path parameter's name in the contract. The operation ids are
 * checked against the contract's types: `create` and `replace` must take the family's input,
 * `get`, `replace` and `remove` must have the `idParam` path parameter.
 * @example crudRoutes(addresses, { create: 'createAddress', … }, { idParam: 'address-id' })
 */
export function crudRoutes<Input, Resource extends Entity, Param extends string, List extends OperationId>(
  resources: AccountResources<Input, Resource>,
  ids: CrudOperationIds<Input, Param, List>,
  options: { idParam: Param; filter?: (query: ParamsIn<List, 'query'>) => ((item: Resource) => boolean) | undefined },
): HandlerMap {
  const handlers: HandlerMap = {};
  // The id types above pair each handler with operations whose checked input it can take;
  // TypeScript cannot follow that pairing into a map indexed by a union of ids.
  const add = (id: OperationId | undefined, handler: (ctx: CheckedContext) => OperationResult) => {
    if (id) (handlers as Record<string, unknown>)[id] = handler;
  };
  const id = (ctx: CheckedContext) => ctx.path[options.idParam] as string;
  add(ids.create, (ctx) => created(resources.create(accountOf(ctx.principal), ctx.body as Input).id));
  add(ids.list, (ctx) => {
    const query = ctx.query as ParamsIn<List, 'query'>;
    return ok(resources.list(accountOf(ctx.principal), { ...pageArgs(ctx.query), filter: options.filter?.(query) }));
  });
  add(ids.get, (ctx) => ok(resources.get(accountOf(ctx.principal), id(ctx))));
  add(ids.replace, (ctx) => {
    resources.replace(accountOf(ctx.principal), id(ctx), ctx.body as Input);
    return noContent();
  });
  add(ids.remove, (ctx) => {
    resources.remove(accountOf(ctx.principal), id(ctx));
    return noContent();
  });
  return handlers;
}
