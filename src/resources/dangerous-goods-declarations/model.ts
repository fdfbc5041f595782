import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** contract: DangerousGoodsDeclarationRequest (contract/DECISIONS.md "Dangerous Goods Declaration path and fields"). */
export type DangerousGoodsDeclarationInput = Schemas['DangerousGoodsDeclarationRequest'];

/** contract: DangerousGoodsDeclaration */
export type DangerousGoodsDeclaration = Schemas['DangerousGoodsDeclaration'];
