import { ok, type HandlerMap, type OperationContext, type OperationResult } from '../shared/operation-handler.js';
import { pageArgs } from '../shared/crud-routes.js';
import type { CatalogueService, RouteQuery } from './service.js';

/** Caching of logos: they change only with the catalogue, i.e. with a new mock version. */
const LOGO_CACHE_CONTROL = 'public, max-age=86400';

const routeOf = (ctx: { query: { route_from?: string; route_to?: string } }): RouteQuery => ({ from: ctx.query.route_from, to: ctx.query.route_to });

/**
 * RFC 9110 §13.1.2: If-None-Match uses weak comparison and may list several tags or `*`.
 * @example etagMatches('W/"abc", "def"', '"def"') // true
 */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

function logoResult(service: CatalogueService, ctx: OperationContext<'getCarrierLogo'>): OperationResult {
  const logo = service.logo(ctx.path['carrier-id']);
  const headers = { 'Cache-Control': LOGO_CACHE_CONTROL, ETag: logo.etag };
  if (etagMatches(ctx.headers['if-none-match'], logo.etag)) return { status: 304, headers };
  return { status: 200, raw: logo.png, contentType: 'image/png', headers };
}

/** Carrier data: carriers, services, routes, logos and the type catalogues (all read-only). */
export function catalogueRoutes(catalogue: CatalogueService): HandlerMap {
  return {
    listCarriers: (ctx) => ok(catalogue.listCarriers(pageArgs(ctx.query), routeOf(ctx))),
    getCarrier: (ctx) => ok(catalogue.getCarrier(ctx.path['carrier-id'], routeOf(ctx))),
    listCarrierServices: (ctx) => ok(catalogue.listCarrierServices(ctx.path['carrier-id'], pageArgs(ctx.query), routeOf(ctx))),
    getCarrierLogo: (ctx) => logoResult(catalogue, ctx),
    listServices: (ctx) => ok(catalogue.listServices(pageArgs(ctx.query), { route: routeOf(ctx), carrierId: ctx.query.carrier_id })),
    getService: (ctx) => ok(catalogue.getService(ctx.path['service-id'], routeOf(ctx))),
    getServiceRoute: (ctx) => ok(catalogue.getServiceRoute(ctx.path['service-id'], ctx.query.route_from, ctx.query.route_to)),
    listSerialTypes: (ctx) => ok(catalogue.listSerialTypes(pageArgs(ctx.query))),
    getSerialType: (ctx) => ok(catalogue.getSerialType(ctx.path['serial-type-id'])),
    listPackingTypes: (ctx) => ok(catalogue.listPackingTypes(pageArgs(ctx.query))),
    getPackingType: (ctx) => ok(catalogue.getPackingType(ctx.path['packing-type-id'])),
    listDocumentTypes: (ctx) => ok(catalogue.listDocumentTypes(pageArgs(ctx.query))),
    getDocumentType: (ctx) => ok(catalogue.getDocumentType(ctx.path['document-type-id'])),
    listCustomsDeclarationTypes: (ctx) => ok(catalogue.listCustomsDeclarationTypes(pageArgs(ctx.query))),
    getCustomsDeclarationType: (ctx) => ok(catalogue.getCustomsDeclarationType(ctx.path['customs-declaration-type-id'])),
    listDangerousGoodsDeclarationTypes: (ctx) => ok(catalogue.listDangerousGoodsDeclarationTypes(pageArgs(ctx.query))),
    getDangerousGoodsDeclarationType: (ctx) => ok(catalogue.getDangerousGoodsDeclarationType(ctx.path['dangerous-goods-declaration-type-id'])),
  };
}
