import { ok, type HandlerMap } from '../shared/operation-handler.js';
import { accountOf } from '../shared/crud-routes.js';
import type { PudoPointQueryInput } from './model.js';
import type { PudoPointService } from './service.js';

export function pudoPointRoutes(pudoPoints: PudoPointService): HandlerMap {
  return {
    // contract/DECISIONS.md "PUDO Point paths and fields": a query is a read, so 200.
    queryPudoPoints: (ctx) => ok(pudoPoints.query(accountOf(ctx.principal), ctx.body, ctx.principal.companyId)),
    getPudoPoint(ctx) {
      accountOf(ctx.principal);
      return ok(pudoPoints.get(ctx.path['pudo-point-id'] as string));
    },
  };
}
