import type { components } from '../client/schema.js';
import type { SerialFormat } from './serial-numbers.js';

/**
 * The carrier catalogue: reference data (spec, "Carrier data … can be fetched. It is used to
 * validate input"). The API views (Carrier, Service, …) are the contract's schemas, as generated
 * into src/client/schema.ts from contract/openapi.yaml (`npm run generate:types`); nothing here
 * restates a field. The Catalogue keeps, beside them, what the simulated carriers need (serial
 * formats, logos).
 */
type Schemas = components['schemas'];

/**
 * contract: Carrier. The catalogue fills every field the contract leaves optional but
 * logoUrl, capabilities and serialTypeIds (every fixture carrier has them; the carriers read them).
 */
export type Carrier = Schemas['Carrier'] & Required<Pick<Schemas['Carrier'], 'logoUrl' | 'capabilities' | 'serialTypeIds'>>;
export type CarrierCategory = Carrier['category'];
export type CarrierCapability = Carrier['capabilities'][number];

/** contract: ServiceRouteEntry */
export type ServiceRouteEntry = Schemas['ServiceRouteEntry'];

/** contract: Service. Every catalogue service states its delivery type, transit days and weight limit. */
export type Service = Schemas['Service'] & Required<Pick<Schemas['Service'], 'deliveryType' | 'transitDaysMin' | 'transitDaysMax' | 'maxWeightKg'>>;

/** contract: SerialType */
export type SerialType = Schemas['SerialType'];

/** contract: PackingType */
export type PackingType = Schemas['PackingType'];

/** contract: DocumentType */
export type DocumentType = Schemas['DocumentType'];
export type DocumentKind = DocumentType['type'];
export type DocumentContentType = DocumentType['contentType'];

/** contract: CustomsDeclarationType */
export type CustomsDeclarationType = Schemas['CustomsDeclarationType'];

/** contract: DangerousGoodsDeclarationType */
export type DangerousGoodsDeclarationType = Schemas['DangerousGoodsDeclarationType'];

/** How a carrier's logo is drawn (fixture data; drawn by src/rendering/logo.ts). */
export interface LogoDesign {
  background: string;
  foreground: string;
  accent?: string;
  text: string;
  subtext?: string;
}

/** A serial type with its generation recipe (internal; the API shows SerialType). */
export interface SerialTypeEntry {
  view: SerialType;
  format: SerialFormat;
}

/** A service with what the simulated carrier needs beside the API view. */
export interface ServiceEntry {
  view: Service;
  serialTypeId: string;
  /** `${from}>${to}` → route entry, for O(1) route checks. */
  routesByPair: ReadonlyMap<string, ServiceRouteEntry>;
  froms: ReadonlySet<string>;
  tos: ReadonlySet<string>;
}

export interface CarrierEntry {
  view: Carrier;
  logo: LogoDesign;
  serviceIds: string[];
}

/** The whole catalogue of one mock instance, loaded once, never changed. */
export interface Catalogue {
  readonly publishedAt: string;
  readonly carriers: readonly CarrierEntry[];
  readonly services: readonly ServiceEntry[];
  readonly serialTypes: readonly SerialTypeEntry[];
  readonly packingTypes: readonly PackingType[];
  readonly documentTypes: readonly DocumentType[];
  readonly customsDeclarationTypes: readonly CustomsDeclarationType[];
  readonly dangerousGoodsDeclarationTypes: readonly DangerousGoodsDeclarationType[];
  carrier(id: string): CarrierEntry | undefined;
  carrierByCode(code: string): CarrierEntry | undefined;
  service(id: string): ServiceEntry | undefined;
  serviceByCode(carrierCode: string, serviceCode: string): ServiceEntry | undefined;
  serialType(id: string): SerialTypeEntry | undefined;
  packingType(id: string): PackingType | undefined;
  documentType(id: string): DocumentType | undefined;
  /** The document type of a kind in one rendering, e.g. ('LABEL', 'ZPL'). */
  documentTypeFor(type: DocumentKind, contentType: DocumentContentType): DocumentType | undefined;
  customsDeclarationType(id: string): CustomsDeclarationType | undefined;
  dangerousGoodsDeclarationType(id: string): DangerousGoodsDeclarationType | undefined;
  /** The route entry of a service for from → to, or undefined when the service does not serve it. */
  route(serviceId: string, from: string, to: string): ServiceRouteEntry | undefined;
}
