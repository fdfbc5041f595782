import type { HandlerMap } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { DangerousGoodsDeclaration } from './model.js';
import type { DangerousGoodsDeclarationService } from './service.js';

export function dangerousGoodsDeclarationRoutes(declarations: DangerousGoodsDeclarationService): HandlerMap {
  return crudRoutes(
    declarations,
    {
      create: 'createDangerousGoodsDeclaration',
      list: 'listDangerousGoodsDeclarations',
      get: 'getDangerousGoodsDeclaration',
      replace: 'replaceDangerousGoodsDeclaration',
      remove: 'deleteDangerousGoodsDeclaration',
    },
    {
      idParam: 'dangerous-goods-declaration-id',
      filter: (query) => (query.parcel_id ? (d: DangerousGoodsDeclaration) => d.parcelId === query.parcel_id : undefined),
    },
  );
}
