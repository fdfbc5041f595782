import { noContent, ok, type HandlerMap } from '../shared/operation-handler.js';
import type { AffiliateService } from './service.js';

export function affiliateRoutes(affiliates: AffiliateService): HandlerMap {
  return {
    getAffiliateConfig: (ctx) => ok(affiliates.get(ctx.principal, ctx.path['affiliate-id'])),
    replaceAffiliateConfig: (ctx) => {
      affiliates.replace(ctx.principal, ctx.path['affiliate-id'], ctx.body);
      return noContent();
    },
  };
}
