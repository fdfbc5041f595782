import { ok, type HandlerMap, type OperationContext } from '../shared/operation-handler.js';
import { accountOf, pageArgs } from '../shared/crud-routes.js';
import type { StoredDocument } from './model.js';
import type { DocumentService } from './service.js';

export function documentRoutes(documents: DocumentService): HandlerMap {
  const id = (ctx: { path: { 'document-id': string } }) => ctx.path['document-id'];
  return {
    listDocuments(ctx) {
      const { group_id: groupId, type } = ctx.query as { group_id?: string; type?: string };
      const filter = groupId || type ? (d: StoredDocument) => (!groupId || d.groupId === groupId) && (!type || d.type === type) : undefined;
      return ok(documents.list(accountOf(ctx.principal), { ...pageArgs(ctx.query), filter }));
    },
    getDocument: (ctx) => ok(documents.get(accountOf(ctx.principal), id(ctx))),
    getDocumentData(ctx) {
      const data = documents.data(accountOf(ctx.principal), id(ctx));
      // contract/DECISIONS.md "Document data": the document's own media type, shown inline.
      return { status: 200, raw: data.bytes, contentType: data.mediaType, headers: { 'Content-Disposition': `inline; filename="${data.fileName}"` } };
    },
    getDocumentMetaData: (ctx) => ok(documents.metaData(accountOf(ctx.principal), id(ctx))),
  };
}
