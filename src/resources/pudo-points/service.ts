import type { ResourceDeps } from '../shared/domain-deps.js';
import type { UsageLedger } from '../../billing/usage.js';
import { ProblemError, ruleViolation } from '../../errors/problem.js';
import type { AddressService } from '../addresses/service.js';
import type { CatalogueLookup } from '../shared/catalogue-lookup.js';
import { generateAreaPoints, locateArea, servesPudo, type Area } from './generate.js';
import { distanceMeters } from './geography.js';
import type { PudoCarrier, PudoPoint, PudoPointQueryInput, PudoPointQueryResult } from './model.js';

const DEFAULT_LIMIT = 10;

/**
 * PUDO Points: generated on demand, deterministically per area and seed, and kept in the
 * global scope as carrier reference data (contract/DECISIONS.md "PUDO points are reference
 * data"), so `get` finds every point any query returned. Each accepted query records one
 * QUERY/PUDO_POINT usage token whose reference is the queryId.
 *
 * @example
 * const result = pudoPoints.query(accountId, { postalCode: '10115', countryCode: 'DE', limit: 5 }, companyId);
 * pudoPoints.get(result.items[0].id).name // 'DHL Paketshop Hauptstraße'
 */
export function createPudoPointService(
  core: ResourceDeps,
  deps: { catalogue: CatalogueLookup; addresses: AddressService; usage: UsageLedger },
) {
  const { store, random } = core;
  const points = () => store.global.collection<PudoPoint>('pudo-points');

  /** The points of one carrier in one area: generated once, then read back from the store. */
  function areaPoints(carrier: PudoCarrier, area: Area): PudoPoint[] {
    const marker = `pudo-area:${area.key}|${carrier.id}`;
    const known = store.global.values.get(marker) as string[] | undefined;
    if (known) return known.map((id) => points().get(id)).filter((p): p is PudoPoint => p !== undefined);
    const generated = generateAreaPoints(carrier, area, random.derive(`pudo:${area.key}|${carrier.id}`));
    for (const point of generated) if (!points().has(point.id)) points().insert(point);
    store.global.values.set(marker, generated.map((p) => p.id));
    return generated;
  }

  /** Where the query starts: the area to search and the point distances are measured from. */
  function originOf(accountId: string, input: PudoPointQueryInput): { area: Area; lat: number; lon: number } {
    let area: Area;
    let lat: number;
    let lon: number;
    if (input.addressId) {
      if (input.postalCode || input.countryCode) {
        throw ruleViolation('body/addressId', 'Give either addressId or postalCode with countryCode, not both');
      }
      const address = deps.addresses.find(accountId, input.addressId);
      if (!address) throw ruleViolation('body/addressId', `Address ${input.addressId} does not exist in this account`);
      area = locateArea(address.countryCode, address.postalCode, address.city);
      // The address sits somewhere in its postal area, not at its centre: a stable offset (≤ ~400 m).
      const jitter = random.derive(`pudo-origin:${address.street}|${area.key}`);
      lat = area.lat + (jitter.next() - 0.5) * 0.007;
      lon = area.lon + (jitter.next() - 0.5) * 0.011;
    } else {
      if (!input.postalCode || !input.countryCode) {
        throw ruleViolation(input.countryCode ? 'body/postalCode' : 'body', 'A PUDO query needs addressId, or postalCode with countryCode');
      }
      area = locateArea(input.countryCode, input.postalCode);
      lat = area.lat;
      lon = area.lon;
    }
    if (input.latitude !== undefined && input.longitude !== undefined) {
      lat = input.latitude;
      lon = input.longitude;
    }
    return { area, lat, lon };
  }

  function carriersFor(countryCode: string, carrierId: string | undefined): PudoCarrier[] {
    if (carrierId) {
      const entry = deps.catalogue.carrier(carrierId);
      if (!entry) throw ruleViolation('body/carrierId', `Carrier ${carrierId} is not in the carrier catalogue`);
      return servesPudo(entry.view, countryCode) ? [entry.view] : [];
    }
    return deps.catalogue.carriers.map((c) => c.view).filter((c) => servesPudo(c, countryCode));
  }

  return {
    /** Runs a query: nearest points first, at most `limit` (default 10); bills one QUERY/PUDO_POINT token. */
    query(accountId: string, input: PudoPointQueryInput, companyId?: string): PudoPointQueryResult {
      const origin = originOf(accountId, input);
      const carriers = carriersFor(origin.area.countryCode, input.carrierId);
      const found = carriers
        .flatMap((carrier) => areaPoints(carrier, origin.area))
        .map((point) => ({ ...point, distanceMeters: distanceMeters(origin, { lat: point.latitude, lon: point.longitude }) }))
        .sort((a, b) => a.distanceMeters - b.distanceMeters || (a.id < b.id ? -1 : 1))
        .slice(0, input.limit ?? DEFAULT_LIMIT);
      const queryId = random.uuid();
      deps.usage.recordUsage({ accountId, companyId, operation: 'QUERY', topic: 'PUDO_POINT', tokens: 1, reference: queryId });
      return { queryId, items: found };
    },

    /** A point any query has returned (points are shared reference data, not account data). */
    get(id: string): PudoPoint {
      const point = points().get(id);
      if (!point) throw new ProblemError('not-found', { detail: `PUDO Point ${id} does not exist` });
      return point;
    },

    find: (id: string): PudoPoint | undefined => points().get(id),

    /** The PUDO Point a request body names (e.g. a booking's PUDO receiver), or a 400 naming `field`. */
    assertExists(id: string, field: string): PudoPoint {
      const point = points().get(id);
      if (!point) throw ruleViolation(field, `PUDO Point ${id} does not exist; query PUDO points first`);
      return point;
    },
  };
}

export type PudoPointService = ReturnType<typeof createPudoPointService>;
