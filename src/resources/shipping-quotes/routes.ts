import type { HandlerMap } from '../shared/operation-handler.js';
import { ok } from '../shared/operation-handler.js';
import { accountOf } from '../shared/crud-routes.js';
import type { InlineShippingQuoteInput, ShippingQuoteInput } from './model.js';
import type { ShippingQuoteService } from './service.js';

export function shippingQuoteRoutes(quotes: ShippingQuoteService): HandlerMap {
  return {
    // contract/DECISIONS.md "Shipping Quote paths and level": both POSTs answer 201 with the batch.
    generateShippingQuotes: (ctx) => ({ status: 201, body: quotes.generate(accountOf(ctx.principal), ctx.body) }),
    generateInlineShippingQuotes: (ctx) => ({ status: 201, body: quotes.generateInline(accountOf(ctx.principal), ctx.body) }),
    getShippingQuoteBatch: (ctx) => ok(quotes.get(accountOf(ctx.principal), ctx.path['purchase-id'] as string)),
  };
}
