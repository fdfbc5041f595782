import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isValidSerial, type CheckDigitAlgorithm } from './serial-numbers.js';
import { stableUuid } from '../random/random.js';
import { compact } from '../util/compact.js';
import { EU_MEMBER_STATES, isDutiable } from './customs-territories.js';
import type {
  Carrier,
  CarrierCapability,
  CarrierCategory,
  CarrierEntry,
  Catalogue,
  CustomsDeclarationType,
  DangerousGoodsDeclarationType,
  DocumentContentType,
  DocumentKind,
  DocumentType,
  LogoDesign,
  PackingType,
  SerialTypeEntry,
  ServiceEntry,
  ServiceRouteEntry,
} from './model.js';

export const BUILT_IN_CATALOGUE_PATH = fileURLToPath(new URL('../../fixtures/catalogue.json', import.meta.url));

/** The fixture file's shape (fixtures/catalogue.json); ids are derived, never stored. */
export interface CatalogueFile {
  publishedAt: string;
  carriers: {
    code: string;
    name: string;
    description?: string;
    category: CarrierCategory;
    countries: string[];
    website?: string;
    capabilities: CarrierCapability[];
    logo: LogoDesign;
    serialTypes: {
      code: string;
      name: string;
      pattern: string;
      checkDigit: CheckDigitAlgorithm;
      checkFrom?: number;
      template: string;
      stagingTemplate: string;
      example: string;
    }[];
    services: {
      code: string;
      name: string;
      description?: string;
      deliveryType: 'HOME' | 'PUDO' | 'BOTH';
      transitDaysMin: number;
      transitDaysMax: number;
      maxWeightKg: number;
      serialType: string;
      routes: RouteGroup[];
    }[];
  }[];
  packingTypes: Omit<PackingType, 'id'>[];
  documentTypes: { type: DocumentKind; contentType: DocumentContentType; description: string }[];
  customsDeclarationTypes: Omit<CustomsDeclarationType, 'id'>[];
  dangerousGoodsDeclarationTypes: Omit<DangerousGoodsDeclarationType, 'id'>[];
}

/** `{domestic: [C…]}` → C→C; `{from: [A…], to: [B…]}` → every A→B with A ≠ B. '@EU' = the EU 27. */
export type RouteGroup = { domestic: string[] } | { from: string[]; to: string[] };

/** IANA media types of the renderings (ZPL has no registered type; x-zpl is the common one). */
export const MEDIA_TYPES: Record<DocumentContentType, string> = {
  PDF: 'application/pdf',
  PNG: 'image/png',
  ZPL: 'application/x-zpl',
};

/** Stable ids: labels, not the seeded random, so `--seed` never moves catalogue ids. */
export const catalogueIds = {
  carrier: (code: string) => stableUuid(`carrier:${code}`),
  service: (carrierCode: string, code: string) => stableUuid(`service:${carrierCode}:${code}`),
  serialType: (code: string) => stableUuid(`serial-type:${code}`),
  packingType: (code: string) => stableUuid(`packing-type:${code}`),
  documentType: (type: string, contentType: string) => stableUuid(`document-type:${type}:${contentType}`),
  customsDeclarationType: (code: string) => stableUuid(`customs-declaration-type:${code}`),
  dangerousGoodsDeclarationType: (code: string) => stableUuid(`dangerous-goods-declaration-type:${code}`),
};

function expandCountries(list: string[]): string[] {
  return list.flatMap((c) => (c === '@EU' ? EU_MEMBER_STATES : [c]));
}

/** Route entries of a service, in fixture order, without duplicates (the first group wins). */
export function expandRoutes(groups: RouteGroup[]): ServiceRouteEntry[] {
  const seen = new Set<string>();
  const out: ServiceRouteEntry[] = [];
  const add = (from: string, to: string) => {
    const key = `${from}>${to}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ from, to, dutiable: isDutiable(from, to), domestic: from === to });
  };
  for (const group of groups) {
    if ('domestic' in group) {
      for (const c of expandCountries(group.domestic)) add(c, c);
    } else {
      for (const from of expandCountries(group.from)) for (const to of expandCountries(group.to)) if (from !== to) add(from, to);
    }
  }
  return out;
}

function fail(message: string): never {
  throw new Error(`carrier catalogue: ${message}`);
}

function unique(kind: string, codes: string[]): void {
  const seen = new Set<string>();
  for (const code of codes) {
    if (seen.has(code)) fail(`duplicate ${kind} code ${code}`);
    seen.add(code);
  }
}

/**
 * Loads and checks the catalogue (once per mock instance). A broken fixture fails loudly at
 * start: duplicate codes, a service naming an unknown serial type, a serial example that does
 * not pass its own pattern and check digit, a service without routes.
 *
 * @example
 * const catalogue = loadCatalogue();
 * catalogue.carrierByCode('DHL_PARCEL')?.view.name // 'DHL Parcel'
 */
export function loadCatalogue(source: string | CatalogueFile = BUILT_IN_CATALOGUE_PATH): Catalogue {
  const file: CatalogueFile = typeof source === 'string' ? JSON.parse(readFileSync(source, 'utf8')) : source;
  unique('carrier', file.carriers.map((c) => c.code));
  unique('serial type', file.carriers.flatMap((c) => c.serialTypes.map((s) => s.code)));
  const loaded = file.carriers.map((raw) => loadCarrier(raw, file.publishedAt));
  return indexCatalogue({
    publishedAt: file.publishedAt,
    carriers: loaded.map((l) => l.carrier),
    services: loaded.flatMap((l) => l.services),
    serialTypes: loaded.flatMap((l) => l.serialTypes),
    ...loadReferenceTypes(file),
  });
}

type RawCarrier = CatalogueFile['carriers'][number];

/** One carrier of the file with its serial types and services, each checked. */
function loadCarrier(raw: RawCarrier, stamp: string): { carrier: CarrierEntry; services: ServiceEntry[]; serialTypes: SerialTypeEntry[] } {
  const carrierId = catalogueIds.carrier(raw.code);
  unique(`${raw.code} service`, raw.services.map((s) => s.code));
  const serialTypes = raw.serialTypes.map((s) => loadSerialType(s, carrierId));
  const serialIds = new Map(serialTypes.map((s) => [s.view.code, s.view.id]));
  const services = raw.services.map((s) => {
    const serialTypeId = serialIds.get(s.serialType) ?? fail(`service ${raw.code}/${s.code} names unknown serial type ${s.serialType}`);
    const routes = expandRoutes(s.routes);
    if (!routes.length) fail(`service ${raw.code}/${s.code} has no routes`);
    const { serialType: _serialType, routes: _groups, ...fields } = s;
    return {
      view: compact({ id: catalogueIds.service(raw.code, s.code), carrierId, ...fields, routes, createdAt: stamp, updatedAt: stamp }),
      serialTypeId,
      routesByPair: new Map(routes.map((r) => [`${r.from}>${r.to}`, r])),
      froms: new Set(routes.map((r) => r.from)),
      tos: new Set(routes.map((r) => r.to)),
    };
  });
  const { logo, serialTypes: _serials, services: _services, ...fields } = raw;
  const view: Carrier = compact({
    id: carrierId,
    ...fields,
    logoUrl: `/v1/carriers/${carrierId}/logo`,
    serialTypeIds: [...serialIds.values()],
    createdAt: stamp,
    updatedAt: stamp,
  });
  return { carrier: { view, logo, serviceIds: services.map((s) => s.view.id) }, services, serialTypes };
}

/** A serial type whose example passes its own pattern and check digit. */
function loadSerialType(s: RawCarrier['serialTypes'][number], carrierId: string): SerialTypeEntry {
  const format = { pattern: s.pattern, checkDigit: s.checkDigit, template: s.template, stagingTemplate: s.stagingTemplate, checkFrom: s.checkFrom };
  if (!isValidSerial(format, s.example)) fail(`serial type ${s.code}: example ${s.example} fails its pattern or check digit`);
  return {
    view: { id: catalogueIds.serialType(s.code), carrierId, code: s.code, name: s.name, pattern: s.pattern, checkDigit: s.checkDigit, example: s.example },
    format,
  };
}

/** Packing, document, customs and dangerous goods declaration types, with their stable ids. */
function loadReferenceTypes(file: CatalogueFile) {
  unique('packing type', file.packingTypes.map((p) => p.code));
  unique('customs declaration type', file.customsDeclarationTypes.map((p) => p.code));
  unique('dangerous goods declaration type', file.dangerousGoodsDeclarationTypes.map((p) => p.code));
  unique('document type', file.documentTypes.map((d) => `${d.type}:${d.contentType}`));
  const documentTypes: DocumentType[] = file.documentTypes.map((d) => ({
    id: catalogueIds.documentType(d.type, d.contentType),
    type: d.type,
    description: d.description,
    mediaType: MEDIA_TYPES[d.contentType],
    contentType: d.contentType,
  }));
  return {
    packingTypes: file.packingTypes.map((p) => compact({ id: catalogueIds.packingType(p.code), ...p })),
    documentTypes,
    customsDeclarationTypes: file.customsDeclarationTypes.map((c) => compact({ id: catalogueIds.customsDeclarationType(c.code), ...c })),
    dangerousGoodsDeclarationTypes: file.dangerousGoodsDeclarationTypes.map((d) => compact({ id: catalogueIds.dangerousGoodsDeclarationType(d.code), ...d })),
  };
}

/** The loaded parts behind their lookups, frozen. */
function indexCatalogue(parts: Pick<Catalogue, 'publishedAt' | 'carriers' | 'services' | 'serialTypes' | 'packingTypes' | 'documentTypes' | 'customsDeclarationTypes' | 'dangerousGoodsDeclarationTypes'>): Catalogue {
  const byId = <T extends { id: string }>(items: readonly T[]) => new Map(items.map((i) => [i.id, i]));
  const carrierById = new Map(parts.carriers.map((c) => [c.view.id, c]));
  const carrierByCode = new Map(parts.carriers.map((c) => [c.view.code, c]));
  const serviceById = new Map(parts.services.map((s) => [s.view.id, s]));
  const serialById = new Map(parts.serialTypes.map((s) => [s.view.id, s]));
  const packingById = byId(parts.packingTypes);
  const documentById = byId(parts.documentTypes);
  const customsById = byId(parts.customsDeclarationTypes);
  const dgById = byId(parts.dangerousGoodsDeclarationTypes);

  return deepFreeze({
    ...parts,
    carrier: (id: string) => carrierById.get(id),
    carrierByCode: (code: string) => carrierByCode.get(code),
    service: (id: string) => serviceById.get(id),
    serviceByCode: (carrierCode: string, serviceCode: string) => serviceById.get(catalogueIds.service(carrierCode, serviceCode)),
    serialType: (id: string) => serialById.get(id),
    packingType: (id: string) => packingById.get(id),
    documentType: (id: string) => documentById.get(id),
    documentTypeFor: (type: DocumentKind, contentType: DocumentContentType) => documentById.get(catalogueIds.documentType(type, contentType)),
    customsDeclarationType: (id: string) => customsById.get(id),
    dangerousGoodsDeclarationType: (id: string) => dgById.get(id),
    route: (serviceId: string, from: string, to: string) => serviceById.get(serviceId)?.routesByPair.get(`${from}>${to}`),
  });
}

/** Freezes plain objects and arrays (Maps and Sets are kept private behind the accessors). */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !(value instanceof Map) && !(value instanceof Set) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
