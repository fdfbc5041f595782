import type { components } from '../client/schema.js';

/**
 * What the document renderers need, independent of where the data came from (bookings,
 * dispatches, tests). Renderers are pure: the same input gives the same bytes, which is what
 * makes documents reproducible from a seed (DESIGN: one clock, one seeded random).
 */
export type LabelFormat = components['schemas']['DocumentRendering']['labelFormat'];
export type LabelSize = components['schemas']['DocumentRendering']['labelSize'];
export type WeightUnit = components['schemas']['UnitPreferences']['weightUnit'];

/** A postal party as printed on a document (an Address, or a PUDO Point as receiver). */
export interface DocumentParty {
  name: string;
  companyName?: string;
  street: string;
  street2?: string;
  postalCode: string;
  city: string;
  stateCode?: string;
  countryCode: string;
  phone?: string;
  email?: string;
}

export interface DocumentCarrier {
  name: string;
  code?: string;
}

export interface DocumentService {
  name: string;
  code?: string;
}

export interface LabelParcel {
  id?: string;
  weight: number;
  weightUnit: WeightUnit;
  dimensions?: { length: number; width: number; height: number; unit: 'CM' | 'IN' };
  reference?: string;
}

/** One shipping label: one parcel of one booking. */
export interface LabelContent {
  specimen: boolean;
  carrier: DocumentCarrier;
  service: DocumentService;
  sender: DocumentParty;
  receiver: DocumentParty;
  /** Printed above the receiver when it is a PUDO Point (e.g. "DHL Paketshop Hauptstraße 5"). */
  receiverPudoName?: string;
  parcel: LabelParcel;
  trackingNumber: string;
  /** 1-based position of the parcel in its booking, with the count ("Parcel 1 of 3"). */
  parcelIndex?: number;
  parcelCount?: number;
  shipDate?: string;
  reference?: string;
}

export interface LabelRendering {
  format: LabelFormat;
  size: LabelSize;
  /** Print resolution; contract default: 203 for ZPL, 300 otherwise. */
  resolutionDpi?: number;
}

/** A line of the customs form: a Customs Declaration line as the API stores it. */
export type CustomsFormLine = components['schemas']['CustomsLine'];

/** A CN22/CN23-like customs form for one booking. */
export interface CustomsFormContent {
  specimen: boolean;
  /** Catalogue codes of the declaration's types, e.g. CN22, CN23, COMMERCIAL_INVOICE. */
  typeCodes: string[];
  carrier: DocumentCarrier;
  sender: DocumentParty;
  receiver: DocumentParty;
  declarant: { firstName: string; lastName: string; city: string; email?: string; phone?: string };
  currency: string;
  contentType?: string;
  incoterm?: string;
  invoiceNumber?: string;
  lines: CustomsFormLine[];
  trackingNumbers: string[];
  reference?: string;
}

export interface DangerousGoodsFormItem {
  unNumber: string;
  properShippingName: string;
  hazardClass?: string;
  packingGroup?: string;
  quantity: number;
  quantityUnit: string;
  typeName?: string;
  trackingNumber?: string;
  emergencyContact?: { name: string; phone: string };
}

/** A shipper's declaration for dangerous goods of one booking. */
export interface DangerousGoodsFormContent {
  specimen: boolean;
  carrier: DocumentCarrier;
  sender: DocumentParty;
  receiver: DocumentParty;
  items: DangerousGoodsFormItem[];
  trackingNumbers: string[];
  reference?: string;
}

export interface ManifestEntry {
  shipmentBookingId: string;
  reference?: string;
  receiver: DocumentParty;
  service?: string;
  parcels: { trackingNumber: string; weightKg: number }[];
}

/** The handover list of one closed Shipment Dispatch. */
export interface ManifestContent {
  specimen: boolean;
  carrier: DocumentCarrier;
  shipmentManifestId: string;
  shipmentDispatchId: string;
  pickupDate?: string;
  pickupWindow?: { from: string; to: string };
  pickupAddress?: DocumentParty;
  reference?: string;
  entries: ManifestEntry[];
}

/** What a file of each format is called and served as; known before anything is rendered. */
export const FILE_FORMATS = {
  PDF: { contentType: 'PDF', mediaType: 'application/pdf', extension: 'pdf' },
  PNG: { contentType: 'PNG', mediaType: 'image/png', extension: 'png' },
  ZPL: { contentType: 'ZPL', mediaType: 'application/x-zpl', extension: 'zpl' },
} as const satisfies Record<LabelFormat, { contentType: LabelFormat; mediaType: string; extension: string }>;

export type FileFormat = (typeof FILE_FORMATS)[LabelFormat];

/** A rendered file: its bytes, its format and (PDF) its page count. */
export type RenderedDocument = FileFormat & {
  bytes: Buffer;
  /** PDF page count. */
  pages?: number;
};
