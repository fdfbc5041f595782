import { created, noContent, ok, type HandlerMap, type OperationHandler, type OperationId } from '../shared/operation-handler.js';
import { PROBLEM_TYPES } from '../../errors/problem-types.js';
import { ProblemError } from '../../errors/problem.js';
import { accountOf, crudRoutes } from '../shared/crud-routes.js';
import { filterOf, type CarrierDefinitionService } from './service.js';

/**
 * Spec, Errors: "errors | array | appears in some 404 bodies of the v0 endpoints, where status is
 * a string". Every 404 of a v0 operation gets that array (and is checked against ProblemV0).
 */
export function toV0Problem(error: unknown): unknown {
  if (!(error instanceof ProblemError) || error.status !== 404) return error;
  const title = error.init.title ?? PROBLEM_TYPES[error.slug].title;
  return new ProblemError(error.slug, {
    ...error.init,
    errors: [{ status: String(error.status), code: 'NOT_FOUND', title, ...(error.init.detail ? { detail: error.init.detail } : {}) }],
  });
}

function v0<Id extends OperationId>(handler: OperationHandler<Id>): OperationHandler<Id> {
  return async (ctx) => {
    try {
      return await handler(ctx);
    } catch (error) {
      throw toV0Problem(error);
    }
  };
}

/** The same Carrier Definitions under /v0 (page/size, camelCase path id) and /v1 (cursor). */
export function carrierDefinitionRoutes(definitions: CarrierDefinitionService): HandlerMap {
  const v1 = crudRoutes(
    definitions,
    {
      create: 'createCarrierDefinition',
      list: 'listCarrierDefinitions',
      get: 'getCarrierDefinition',
      replace: 'replaceCarrierDefinition',
      remove: 'deleteCarrierDefinition',
    },
    { idParam: 'carrier-definition-id', filter: (q) => filterOf({ group: q.group, carrierId: q.carrier_id, mode: q.mode }) },
  );
  const id = (path: Record<string, unknown>) => path.carrierDefinitionId as string;
  return {
    ...v1,
    createCarrierDefinitionV0: v0((ctx) => created(definitions.create(accountOf(ctx.principal), ctx.body).id)),
    // page and size have defaults in the contract, which validation applies.
    listCarrierDefinitionsV0: v0((ctx) =>
      ok(definitions.listPage(accountOf(ctx.principal), { page: ctx.query.page as number, size: ctx.query.size as number, group: ctx.query.group })),
    ),
    getCarrierDefinitionV0: v0((ctx) => ok(definitions.get(accountOf(ctx.principal), id(ctx.path)))),
    replaceCarrierDefinitionV0: v0((ctx) => {
      definitions.replace(accountOf(ctx.principal), id(ctx.path), ctx.body);
      return noContent();
    }),
    deleteCarrierDefinitionV0: v0((ctx) => {
      definitions.remove(accountOf(ctx.principal), id(ctx.path));
      return noContent();
    }),
  };
}

