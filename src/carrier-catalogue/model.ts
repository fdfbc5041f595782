import type { CheckDigitAlgorithm, SerialFormat } from './serial-numbers.js';

/**
 * The carrier catalogue: reference data (spec, "Carrier data … can be fetched. It is used to
 * validate input"). The API views (Carrier, Service, …) are exactly the contract's schemas;
 * the Catalogue keeps, beside them, what the simulated carriers need (serial formats, logos).
 */
export type CarrierCategory = 'PARCEL' | 'PUDO' | 'EXPRESS' | 'FREIGHT';

export type CarrierCapability =
  | 'HOME_DELIVERY'
  | 'PUDO_DELIVERY'
  | 'PICKUP'
  | 'RETURNS'
  | 'TRACKING'
  | 'CUSTOMS'
  | 'DANGEROUS_GOODS'
  | 'CASH_ON_DELIVERY';

/** contract: Carrier */
export interface Carrier {
  id: string;
  code: string;
  name: string;
  description?: string;
  category: CarrierCategory;
  countries: string[];
  website?: string;
  logoUrl: string;
  capabilities: CarrierCapability[];
  serialTypeIds: string[];
  createdAt: string;
  updatedAt: string;
}

/** contract: ServiceRouteEntry */
export interface ServiceRouteEntry {
  from: string;
  to: string;
  dutiable: boolean;
  domestic: boolean;
}

/** contract: Service */
export interface Service {
  id: string;
  carrierId: string;
  code: string;
  name: string;
  description?: string;
  deliveryType: 'HOME' | 'PUDO' | 'BOTH';
  transitDaysMin: number;
  transitDaysMax: number;
  maxWeightKg: number;
  routes: ServiceRouteEntry[];
  createdAt: string;
  updatedAt: string;
}

/** contract: SerialType */
export interface SerialType {
  id: string;
  carrierId: string;
  code: string;
  name: string;
  pattern: string;
  checkDigit: CheckDigitAlgorithm;
  example: string;
}

/** contract: PackingType */
export interface PackingType {
  id: string;
  code: string;
  name: string;
  description?: string;
  maxWeightKg?: number;
  lengthCm?: number;
  widthCm?: number;
  heightCm?: number;
}

export type DocumentKind = 'LABEL' | 'INVOICE' | 'WAYBILL' | 'CUSTOMS' | 'MANIFEST' | 'DANGEROUS_GOODS' | 'RETURN_LABEL';
export type DocumentContentType = 'PDF' | 'PNG' | 'ZPL';

/** contract: DocumentType */
export interface DocumentType {
  id: string;
  type: DocumentKind;
  description: string;
  mediaType: string;
  contentType: DocumentContentType;
}

/** contract: CustomsDeclarationType */
export interface CustomsDeclarationType {
  id: string;
  code: string;
  name: string;
  description?: string;
  maxValue?: number;
  currency?: string;
}

/** contract: DangerousGoodsDeclarationType */
export interface DangerousGoodsDeclarationType {
  id: string;
  code: string;
  name: string;
  unNumber?: string;
  hazardClass?: string;
  description?: string;
}

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
