import type { DomainDeps } from '../shared/domain-deps.js';
import { renderLogo, type RenderedLogo } from '../../rendering/logo.js';
import type { Carrier, CarrierEntry, Service, ServiceEntry, ServiceRouteEntry } from '../../carrier-catalogue/model.js';
import { ProblemError, type Violation } from '../../errors/problem.js';
import { Collection, type Entity, type Page, type PageRequest } from '../../store/collection.js';

/** route_from / route_to of a request (each may be given alone). */
export interface RouteQuery {
  from?: string;
  to?: string;
}

export interface ServiceRouteCheck {
  serviceId: string;
  routeFrom: string;
  routeTo: string;
  supported: boolean;
  dutiable?: boolean;
  domestic?: boolean;
}

function catalogueNotFound(label: string, id: string): ProblemError {
  return new ProblemError('not-found', { detail: `${label} ${id} is not in the carrier catalogue` });
}

/** Whether a service serves the route: both sides given → that pair; one side → any route from / to it. */
function servesRoute(service: ServiceEntry, route: RouteQuery): boolean {
  if (route.from && route.to) return service.routesByPair.has(`${route.from}>${route.to}`);
  if (route.from) return service.froms.has(route.from);
  if (route.to) return service.tos.has(route.to);
  return true;
}

/** `refusal` ends in the verb: "Royal Mail Tracked 24 does not serve", "No service of Royal Mail serves". */
function routeUnsupported(refusal: string, route: RouteQuery): ProblemError {
  const described = `${route.from ?? 'any country'} → ${route.to ?? 'any country'}`;
  const message = `${refusal} the route ${described}`;
  const violations: Violation[] = [];
  if (route.from) violations.push({ field: 'query/route_from', message });
  if (route.to) violations.push({ field: 'query/route_to', message });
  return new ProblemError('rule-violation', { detail: message, violations });
}

/** An immutable list served with the same cursor pages as every v1 list. */
function listOf<T extends Entity>(items: readonly T[]): Collection<T> {
  const collection = new Collection<T>();
  for (const item of items) collection.insert(item);
  return collection;
}

/**
 * Read access to the carrier catalogue (runtime.catalogue) for the carrier-data endpoints:
 * cursor pages over the fixed lists, route filters (contract/DECISIONS.md "Route parameters on
 * lists and fetches") and logos rendered once per mock instance.
 *
 * @example
 * const catalogue = createCatalogueService(runtime);
 * catalogue.listCarriers({ limit: 20 }, { from: 'DE', to: 'GB' }).items.map((c) => c.code)
 */
export function createCatalogueService(core: Pick<DomainDeps, 'catalogue'>) {
  const { catalogue } = core;
  const carriers = listOf(catalogue.carriers.map((c) => c.view));
  const services = listOf(catalogue.services.map((s) => s.view));
  const serialTypes = listOf(catalogue.serialTypes.map((s) => s.view));
  const packingTypes = listOf(catalogue.packingTypes);
  const documentTypes = listOf(catalogue.documentTypes);
  const customsDeclarationTypes = listOf(catalogue.customsDeclarationTypes);
  const dangerousGoodsDeclarationTypes = listOf(catalogue.dangerousGoodsDeclarationTypes);
  const logos = new Map<string, RenderedLogo>();

  const carrierEntry = (id: string): CarrierEntry => getOne(catalogue.carrier, 'Carrier', id);
  const serviceEntry = (id: string): ServiceEntry => getOne(catalogue.service, 'Service', id);
  const carrierServesRoute = (carrier: CarrierEntry, route: RouteQuery) =>
    carrier.serviceIds.some((id) => servesRoute(catalogue.service(id)!, route));
  const routeGiven = (route: RouteQuery) => Boolean(route.from || route.to);

  function getOne<T>(lookup: (id: string) => T | undefined, label: string, id: string): T {
    const found = lookup(id);
    if (!found) throw catalogueNotFound(label, id);
    return found;
  }

  function listServices(page: PageRequest<Service>, options: { route: RouteQuery; carrierId?: string }): Page<Service> {
    const { route, carrierId } = options;
    const filter =
      routeGiven(route) || carrierId
        ? (s: Service) => (!carrierId || s.carrierId === carrierId) && servesRoute(catalogue.service(s.id)!, route)
        : undefined;
    return services.page({ ...page, filter });
  }

  return {
    listCarriers(page: PageRequest<Carrier>, route: RouteQuery): Page<Carrier> {
      const filter = routeGiven(route) ? (c: Carrier) => carrierServesRoute(catalogue.carrier(c.id)!, route) : undefined;
      return carriers.page({ ...page, filter });
    },
    getCarrier(id: string, route: RouteQuery): Carrier {
      const carrier = carrierEntry(id);
      if (routeGiven(route) && !carrierServesRoute(carrier, route)) throw routeUnsupported(`No service of ${carrier.view.name} serves`, route);
      return carrier.view;
    },
    listServices,
    /** The services of one carrier; an unknown carrier is 404 (it is the path's resource). */
    listCarrierServices(carrierId: string, page: PageRequest<Service>, route: RouteQuery): Page<Service> {
      carrierEntry(carrierId);
      return listServices(page, { route, carrierId });
    },
    getService(id: string, route: RouteQuery): Service {
      const service = serviceEntry(id);
      if (routeGiven(route) && !servesRoute(service, route)) throw routeUnsupported(`${service.view.name} does not serve`, route);
      return service.view;
    },
    /** Spec: "returns whether the route is supported, plus the dutiable and domestic flags of the matched route entry". */
    getServiceRoute(id: string, from: string, to: string): ServiceRouteCheck {
      const service = serviceEntry(id);
      const entry: ServiceRouteEntry | undefined = service.routesByPair.get(`${from}>${to}`);
      return entry
        ? { serviceId: id, routeFrom: from, routeTo: to, supported: true, dutiable: entry.dutiable, domestic: entry.domestic }
        : { serviceId: id, routeFrom: from, routeTo: to, supported: false };
    },
    /** PNG bytes and strong ETag of a carrier's logo, rendered on first use and kept. */
    logo(carrierId: string): RenderedLogo {
      let logo = logos.get(carrierId);
      if (!logo) logos.set(carrierId, (logo = renderLogo(carrierEntry(carrierId).logo)));
      return logo;
    },
    listSerialTypes: (page: PageRequest<Entity>) => serialTypes.page(page),
    getSerialType: (id: string) => getOne((x) => catalogue.serialType(x)?.view, 'Serial Type', id),
    listPackingTypes: (page: PageRequest<Entity>) => packingTypes.page(page),
    getPackingType: (id: string) => getOne(catalogue.packingType, 'Packing Type', id),
    listDocumentTypes: (page: PageRequest<Entity>) => documentTypes.page(page),
    getDocumentType: (id: string) => getOne(catalogue.documentType, 'Document Type', id),
    listCustomsDeclarationTypes: (page: PageRequest<Entity>) => customsDeclarationTypes.page(page),
    getCustomsDeclarationType: (id: string) => getOne(catalogue.customsDeclarationType, 'Customs Declaration Type', id),
    listDangerousGoodsDeclarationTypes: (page: PageRequest<Entity>) => dangerousGoodsDeclarationTypes.page(page),
    getDangerousGoodsDeclarationType: (id: string) => getOne(catalogue.dangerousGoodsDeclarationType, 'Dangerous Goods Declaration Type', id),
  };
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
