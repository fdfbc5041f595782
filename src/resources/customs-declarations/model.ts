import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** contract: CustomsLine */
export type CustomsLine = Schemas['CustomsLine'];

/** contract: Declarant */
export type Declarant = Schemas['Declarant'];

/** contract: CustomsDeclarationRequest (spec: "types, declarant.firstName/lastName/city, currency"). */
export type CustomsDeclarationInput = Schemas['CustomsDeclarationRequest'];

/** contract: CustomsDeclaration */
export type CustomsDeclaration = Schemas['CustomsDeclaration'];
