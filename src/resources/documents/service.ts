import { createHash } from 'node:crypto';
import type { ResourceDeps } from '../shared/domain-deps.js';
import { renderCustomsForm } from '../../documents/customs-form.js';
import { renderDangerousGoodsForm } from '../../documents/dangerous-goods-form.js';
import { renderLabel } from '../../documents/label.js';
import { renderManifest } from '../../documents/manifest.js';
import type { RenderedDocument } from '../../documents/model.js';
import { createGlyphCache } from '../../documents/raster.js';
import { notFound } from '../../errors/problem.js';
import type { Page, PageRequest } from '../../store/collection.js';
import { compact } from '../../util/compact.js';
import type {
  CustomsFormDocumentRequest,
  DangerousGoodsDocumentRequest,
  DocumentData,
  DocumentGroup,
  DocumentKind,
  DocumentMetaData,
  DocumentView,
  LabelDocumentRequest,
  ManifestDocumentRequest,
  StoredContent,
  StoredDocument,
} from './model.js';

/** File names keep to a portable character set whatever a tracking number or reference holds. */
const safeName = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 120);

/**
 * Documents: real files rendered from booking data and stored, with their metadata, in the
 * account's scope. No endpoint creates documents (contract/DECISIONS.md "Document upload");
 * bookings and manifests call the create functions here. Each new document publishes
 * DOCUMENT CREATED with the Document as its GET returns it.
 *
 * @example
 * const label = documents.createLabel(accountId, {
 *   format: 'PDF', size: 'A6', specimen: true, carrier: { name: 'DHL Parcel' }, service: { name: 'DHL Paket' },
 *   sender, receiver, parcel: { id: parcelId, weight: 2.5, weightUnit: 'KG' },
 *   trackingNumber: '340434161094', shipmentBookingId,
 * });
 * documents.data(accountId, label.id).bytes // %PDF-…
 */
export function createDocumentService(core: ResourceDeps) {
  const { store, clock, random, events } = core;
  const documents = (accountId: string) => store.account(accountId).collection<StoredDocument>('documents');
  const contents = (accountId: string) => store.account(accountId).collection<StoredContent>('document-contents');
  const glyphs = createGlyphCache();

  const view = (stored: StoredDocument): DocumentView => {
    const { metaDataId: _metaDataId, checksum: _checksum, pages: _pages, ...rest } = stored;
    return rest;
  };

  function saveDocument(
    accountId: string,
    rendered: RenderedDocument,
    meta: { type: DocumentKind; group: DocumentGroup; specimen: boolean; fileStem: string; trackingNumber?: string; parcelId?: string; createdAt: string },
  ): DocumentView {
    const id = random.uuid();
    const stored: StoredDocument = compact({
      id,
      createdAt: meta.createdAt,
      updatedAt: meta.createdAt,
      type: meta.type,
      groupId: meta.group.id,
      groupType: meta.group.type,
      mediaType: rendered.mediaType,
      contentType: rendered.contentType,
      fileName: `${safeName(meta.fileStem)}.${rendered.extension}`,
      size: rendered.bytes.length,
      specimen: meta.specimen,
      trackingNumber: meta.trackingNumber,
      parcelId: meta.parcelId,
      metaDataId: random.uuid(),
      checksum: createHash('sha256').update(rendered.bytes).digest('hex'),
      pages: rendered.pages,
    });
    documents(accountId).insert(stored);
    contents(accountId).insert({ id, base64: rendered.bytes.toString('base64') });
    const document = view(stored);
    events.publish({ topic: 'DOCUMENT', type: 'CREATED', accountId, payload: document });
    return document;
  }

  function stored(accountId: string, id: string): StoredDocument {
    const found = documents(accountId).get(id);
    if (!found) throw notFound('Document', id);
    return found;
  }

  return {
    /** Renders and stores the label of one parcel (PDF, PNG or ZPL per `format`). */
    createLabel(accountId: string, request: LabelDocumentRequest): DocumentView {
      const createdAt = clock.nowIso();
      const rendered = renderLabel(request, request, createdAt, glyphs);
      return saveDocument(accountId, rendered, {
        type: 'LABEL',
        group: request.group ?? { id: request.shipmentBookingId, type: 'SHIPMENT_BOOKING' },
        specimen: request.specimen,
        fileStem: `label-${request.trackingNumber}`,
        trackingNumber: request.trackingNumber,
        parcelId: request.parcel.id,
        createdAt,
      });
    },

    /** Renders and stores a CN22/CN23-like customs form (PDF) for a booking. */
    createCustomsForm(accountId: string, request: CustomsFormDocumentRequest): DocumentView {
      const createdAt = clock.nowIso();
      return saveDocument(accountId, renderCustomsForm(request, createdAt), {
        type: 'CUSTOMS',
        group: request.group ?? { id: request.shipmentBookingId, type: 'SHIPMENT_BOOKING' },
        specimen: request.specimen,
        fileStem: `customs-${request.trackingNumbers[0] ?? request.shipmentBookingId}`,
        trackingNumber: request.trackingNumbers[0],
        createdAt,
      });
    },

    /** Renders and stores a shipper's declaration for dangerous goods (PDF) for a booking. */
    createDangerousGoodsForm(accountId: string, request: DangerousGoodsDocumentRequest): DocumentView {
      const createdAt = clock.nowIso();
      return saveDocument(accountId, renderDangerousGoodsForm(request, createdAt), {
        type: 'DANGEROUS_GOODS',
        group: request.group ?? { id: request.shipmentBookingId, type: 'SHIPMENT_BOOKING' },
        specimen: request.specimen,
        fileStem: `dangerous-goods-${request.trackingNumbers[0] ?? request.shipmentBookingId}`,
        trackingNumber: request.trackingNumbers[0],
        createdAt,
      });
    },

    /** Renders and stores the manifest (PDF) of a closed dispatch, filed under the Shipment Manifest. */
    createManifest(accountId: string, request: ManifestDocumentRequest): DocumentView {
      const createdAt = clock.nowIso();
      return saveDocument(accountId, renderManifest(request, createdAt), {
        type: 'MANIFEST',
        group: { id: request.shipmentManifestId, type: 'SHIPMENT_MANIFEST' },
        specimen: request.specimen,
        fileStem: `manifest-${request.shipmentManifestId}`,
        createdAt,
      });
    },

    get: (accountId: string, id: string): DocumentView => view(stored(accountId, id)),

    find(accountId: string, id: string): DocumentView | undefined {
      const found = documents(accountId).get(id);
      return found && view(found);
    },

    list(accountId: string, page: PageRequest<StoredDocument>): Page<DocumentView> {
      const result = documents(accountId).page(page);
      return { ...result, items: result.items.map(view) };
    },

    /** The documents filed under one entity (booking, manifest, …), oldest first. */
    ofGroup: (accountId: string, groupId: string): DocumentView[] => documents(accountId).filter((d) => d.groupId === groupId).map(view),

    /** The bytes with their media type and file name. */
    data(accountId: string, id: string): DocumentData {
      const document = stored(accountId, id);
      const content = contents(accountId).get(id);
      if (!content) throw notFound('Document', id);
      return { bytes: Buffer.from(content.base64, 'base64'), mediaType: document.mediaType, fileName: document.fileName };
    },

    /** contract: DocumentMetaData — checksum (SHA-256 hex), size and pages of the stored bytes. */
    metaData(accountId: string, id: string): DocumentMetaData {
      const document = stored(accountId, id);
      return compact({
        id: document.metaDataId,
        documentId: document.id,
        type: document.type,
        mediaType: document.mediaType,
        contentType: document.contentType,
        size: document.size,
        checksum: document.checksum,
        pages: document.pages,
        groupId: document.groupId,
        groupType: document.groupType,
        specimen: document.specimen,
        createdAt: document.createdAt,
      });
    },
  };
}

export type DocumentService = ReturnType<typeof createDocumentService>;
