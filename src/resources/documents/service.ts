import { createHash } from 'node:crypto';
import type { ResourceDeps } from '../shared/domain-deps.js';
import { renderCustomsForm } from '../../rendering/customs-form.js';
import { renderDangerousGoodsForm } from '../../rendering/dangerous-goods-form.js';
import { renderLabel } from '../../rendering/label.js';
import { renderManifest } from '../../rendering/manifest.js';
import { FILE_FORMATS, type FileFormat, type RenderedDocument } from '../../rendering/model.js';
import { createGlyphCache } from '../../rendering/raster.js';
import { notFound, ProblemError } from '../../errors/problem.js';
import type { Page, PageRequest } from '../../store/collection.js';
import { compact } from '../../util/compact.js';
import type {
  DocumentRecipe,
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

/** Documents kept rendered: the ones just fetched (a label is usually fetched again, e.g. data after meta-data). */
const RENDER_CACHE_SIZE = 32;

/** A small least-recently-used map (a Map keeps insertion order; a hit moves the key to the end). */
function createRenderCache<T>(size: number) {
  const entries = new Map<string, T>();
  return {
    get(key: string): T | undefined {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key: string, value: T): void {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > size) entries.delete(entries.keys().next().value!);
    },
  };
}

/** The bytes of a document and, for a PDF, its page count. */
type Content = Pick<RenderedDocument, 'bytes' | 'pages'>;

type GlyphCache = ReturnType<typeof createGlyphCache>;

/** A recipe rendered: the same recipe always gives the same bytes. */
function render(recipe: DocumentRecipe, glyphs: GlyphCache): RenderedDocument {
  switch (recipe.kind) {
    case 'label':
      return renderLabel(recipe.request, recipe.request, recipe.createdAt, glyphs);
    case 'customs':
      return renderCustomsForm(recipe.request, recipe.createdAt);
    case 'dangerous-goods':
      return renderDangerousGoodsForm(recipe.request, recipe.createdAt);
    case 'manifest':
      return renderManifest(recipe.request, recipe.createdAt);
  }
}

/**
 * A stored recipe rendered. Recipes the mock wrote always render; one from a state file
 * edited by hand may not, and that is the file's fault, not a server error: the content is
 * answered as missing (404), and the rest of the state keeps working.
 */
function renderRecipe(recipe: DocumentRecipe, id: string, glyphs: GlyphCache): Content {
  try {
    const document = render(recipe, glyphs);
    if (Buffer.isBuffer(document?.bytes)) return document;
  } catch {
    // fall through: the recipe does not render
  }
  throw new ProblemError('not-found', { detail: `Document ${id} has no content that can be rendered (its stored recipe is broken; was the state file edited?)` });
}

/** What a Document says of itself, known from its recipe alone (nothing is rendered for it). */
interface DocumentFacts {
  type: DocumentKind;
  format: FileFormat;
  group: DocumentGroup;
  specimen: boolean;
  fileStem: string;
  trackingNumber?: string;
  parcelId?: string;
}

function factsOf(recipe: DocumentRecipe): DocumentFacts {
  switch (recipe.kind) {
    case 'label': {
      const { request } = recipe;
      return {
        type: 'LABEL',
        format: FILE_FORMATS[request.format],
        group: request.group ?? { id: request.shipmentBookingId, type: 'SHIPMENT_BOOKING' },
        specimen: request.specimen,
        fileStem: `label-${request.trackingNumber}`,
        trackingNumber: request.trackingNumber,
        parcelId: request.parcel.id,
      };
    }
    case 'customs': {
      const { request } = recipe;
      return {
        type: 'CUSTOMS',
        format: FILE_FORMATS.PDF,
        group: request.group ?? { id: request.shipmentBookingId, type: 'SHIPMENT_BOOKING' },
        specimen: request.specimen,
        fileStem: `customs-${request.trackingNumbers[0] ?? request.shipmentBookingId}`,
        trackingNumber: request.trackingNumbers[0],
      };
    }
    case 'dangerous-goods': {
      const { request } = recipe;
      return {
        type: 'DANGEROUS_GOODS',
        format: FILE_FORMATS.PDF,
        group: request.group ?? { id: request.shipmentBookingId, type: 'SHIPMENT_BOOKING' },
        specimen: request.specimen,
        fileStem: `dangerous-goods-${request.trackingNumbers[0] ?? request.shipmentBookingId}`,
        trackingNumber: request.trackingNumbers[0],
      };
    }
    case 'manifest': {
      const { request } = recipe;
      return {
        type: 'MANIFEST',
        format: FILE_FORMATS.PDF,
        group: { id: request.shipmentManifestId, type: 'SHIPMENT_MANIFEST' },
        specimen: request.specimen,
        fileStem: `manifest-${request.shipmentManifestId}`,
      };
    }
  }
}

/** The Document as answered: named fields only, so fields older versions stored (size, checksum) stay out. */
const view = (stored: StoredDocument): DocumentView =>
  compact({
    id: stored.id,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    type: stored.type,
    groupId: stored.groupId,
    groupType: stored.groupType,
    mediaType: stored.mediaType,
    contentType: stored.contentType,
    fileName: stored.fileName,
    specimen: stored.specimen,
    trackingNumber: stored.trackingNumber,
    parcelId: stored.parcelId,
  });

/** contract: DocumentMetaData — size, checksum (SHA-256 hex) and pages of the content, computed from it. */
const metaDataOf = (document: StoredDocument, { bytes, pages }: Content): DocumentMetaData =>
  compact({
    id: document.metaDataId,
    documentId: document.id,
    type: document.type,
    mediaType: document.mediaType,
    contentType: document.contentType,
    size: bytes.length,
    checksum: createHash('sha256').update(bytes).digest('hex'),
    pages,
    groupId: document.groupId,
    groupType: document.groupType,
    specimen: document.specimen,
    createdAt: document.createdAt,
  });

/**
 * Documents: real files, stored as what they are rendered from (booking data) with their
 * metadata in the account's scope, and rendered when their content or meta-data is asked for.
 * No endpoint creates documents (contract/DECISIONS.md "Document upload"); bookings and
 * manifests call the create functions here. Each new document publishes
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
  const rendered = createRenderCache<Content>(RENDER_CACHE_SIZE);

  /**
   * Stores a document as its recipe; nothing is rendered here. Everything the Document says of
   * itself is known from the recipe's format, so a booking costs the same whatever its label
   * format, and the bytes are rendered (byte-identical every time) when someone asks for them.
   */
  function saveDocument(accountId: string, recipe: DocumentRecipe): DocumentView {
    const facts = factsOf(recipe);
    const id = random.uuid();
    const stored: StoredDocument = compact({
      id,
      createdAt: recipe.createdAt,
      updatedAt: recipe.createdAt,
      type: facts.type,
      groupId: facts.group.id,
      groupType: facts.group.type,
      mediaType: facts.format.mediaType,
      contentType: facts.format.contentType,
      fileName: `${safeName(facts.fileStem)}.${facts.format.extension}`,
      specimen: facts.specimen,
      trackingNumber: facts.trackingNumber,
      parcelId: facts.parcelId,
      metaDataId: random.uuid(),
    });
    documents(accountId).insert(stored);
    contents(accountId).insert({ id, recipe });
    const document = view(stored);
    events.publish({ topic: 'DOCUMENT', type: 'CREATED', accountId, payload: document });
    return document;
  }

  /** The content of a stored document: rendered from its recipe (recent ones cached) or, if stored by an earlier version, its bytes. */
  function content(accountId: string, document: StoredDocument): Content {
    const stored = contents(accountId).get(document.id);
    if (!stored) throw notFound('Document', document.id);
    if (stored.base64 !== undefined) return { bytes: Buffer.from(stored.base64, 'base64'), pages: document.pages };
    const key = `${accountId}/${document.id}`;
    let found = rendered.get(key);
    if (!found) {
      found = renderRecipe(stored.recipe, document.id, glyphs);
      rendered.set(key, found);
    }
    return found;
  }

  function stored(accountId: string, id: string): StoredDocument {
    const found = documents(accountId).get(id);
    if (!found) throw notFound('Document', id);
    return found;
  }

  return {
    /** Renders and stores the label of one parcel (PDF, PNG or ZPL per `format`). */
    createLabel: (accountId: string, request: LabelDocumentRequest): DocumentView => saveDocument(accountId, { kind: 'label', request, createdAt: clock.nowIso() }),

    /** Renders and stores a CN22/CN23-like customs form (PDF) for a booking. */
    createCustomsForm: (accountId: string, request: CustomsFormDocumentRequest): DocumentView =>
      saveDocument(accountId, { kind: 'customs', request, createdAt: clock.nowIso() }),

    /** Renders and stores a shipper's declaration for dangerous goods (PDF) for a booking. */
    createDangerousGoodsForm: (accountId: string, request: DangerousGoodsDocumentRequest): DocumentView =>
      saveDocument(accountId, { kind: 'dangerous-goods', request, createdAt: clock.nowIso() }),

    /** Renders and stores the manifest (PDF) of a closed dispatch, filed under the Shipment Manifest. */
    createManifest: (accountId: string, request: ManifestDocumentRequest): DocumentView => saveDocument(accountId, { kind: 'manifest', request, createdAt: clock.nowIso() }),

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
      return { bytes: content(accountId, document).bytes, mediaType: document.mediaType, fileName: document.fileName };
    },

    /** contract: DocumentMetaData — size, checksum (SHA-256 hex) and pages of the content, computed from it. */
    metaData(accountId: string, id: string): DocumentMetaData {
      const document = stored(accountId, id);
      return metaDataOf(document, content(accountId, document));
    },
  };
}

export type DocumentService = ReturnType<typeof createDocumentService>;
