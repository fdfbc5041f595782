import type { HandlerMap } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { CustomsDeclarationService } from './service.js';

export function customsDeclarationRoutes(customs: CustomsDeclarationService): HandlerMap {
  return crudRoutes(
    customs,
    {
      create: 'createCustomsDeclaration',
      list: 'listCustomsDeclarations',
      get: 'getCustomsDeclaration',
      replace: 'replaceCustomsDeclaration',
      remove: 'deleteCustomsDeclaration',
    },
    { idParam: 'customs-declaration-id' },
  );
}
