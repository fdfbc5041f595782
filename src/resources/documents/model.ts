import type { components } from '../../client/schema.js';
import type {
  CustomsFormContent,
  DangerousGoodsFormContent,
  LabelContent,
  LabelRendering,
  ManifestContent,
} from '../../rendering/model.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** contract: Document (contract/DECISIONS.md "Document fields"). */
export type DocumentView = Schemas['Document'];
export type DocumentKind = DocumentView['type'];
export type DocumentGroupType = DocumentView['groupType'];

/** contract: DocumentMetaData */
export type DocumentMetaData = Schemas['DocumentMetaData'];

/**
 * What the store keeps per document: the view plus its metadata's own id. Nothing about the
 * bytes (size, checksum, pages) is kept: those are facts of the content, computed when
 * meta-data is asked for, so a booking never renders (contract/DECISIONS.md "Documents are
 * rendered when asked"). State written by earlier versions also holds size, checksum and
 * pages; they are ignored except `pages` of a document kept as bytes.
 */
export interface StoredDocument extends DocumentView {
  metaDataId: string;
  /** Written by earlier versions only. */
  pages?: number;
}

/**
 * How a document's bytes are kept. New documents keep their recipe — what they were rendered
 * from, a few hundred bytes — and are rendered again when asked (byte-identical: the renderers
 * are deterministic); a label's bytes are 20–130 KiB. Documents stored before (state exports,
 * --data files) keep their bytes as base64 and are served from them.
 */
export type StoredContent = { id: string; base64: string; recipe?: undefined } | { id: string; recipe: DocumentRecipe; base64?: undefined };

/** What renders a document again, exactly as the first time. */
export type DocumentRecipe =
  | { kind: 'label'; request: LabelDocumentRequest; createdAt: string }
  | { kind: 'customs'; request: CustomsFormDocumentRequest; createdAt: string }
  | { kind: 'dangerous-goods'; request: DangerousGoodsDocumentRequest; createdAt: string }
  | { kind: 'manifest'; request: ManifestDocumentRequest; createdAt: string };

/** Overrides the entity a document is filed under (default: the booking or manifest). */
export interface DocumentGroup {
  id: string;
  type: DocumentGroupType;
}

/** A label for one parcel of a booking, rendered as the shipment channel's documentRendering says. */
export interface LabelDocumentRequest extends LabelContent, LabelRendering {
  shipmentBookingId: string;
  group?: DocumentGroup;
}

/** A customs form (CN22/CN23-like) for a booking. */
export interface CustomsFormDocumentRequest extends CustomsFormContent {
  shipmentBookingId: string;
  group?: DocumentGroup;
}

/** A dangerous goods declaration form for a booking. */
export interface DangerousGoodsDocumentRequest extends DangerousGoodsFormContent {
  shipmentBookingId: string;
  group?: DocumentGroup;
}

/** A manifest of a closed dispatch; filed under the Shipment Manifest. */
export type ManifestDocumentRequest = ManifestContent;

/** The content of a document as served by getDocumentData. */
export interface DocumentData {
  bytes: Buffer;
  mediaType: string;
  fileName: string;
}
