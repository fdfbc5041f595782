import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** Account: the isolation unit of the spec ("Accounts" section). Fields: contract AccountRequest / AccountResponse. */
export type AccountInput = Schemas['AccountRequest'];

type Persistence = NonNullable<Schemas['AccountResponse']['persistence']>;
export type PersistenceType = NonNullable<Persistence['type']>;

/** contract: AccountResponse. The mock always states an account's persistence and its type. */
export type Account = Schemas['AccountResponse'] & { persistence: Persistence & { type: PersistenceType } };
export type AccountCompany = Account['company'];
export type AccountContact = Account['contact'];
export type AccountType = Account['type'];

/** Which company owns an account id: the global index that token issuing and auth consult. */
export interface AccountOwner {
  id: string;
  companyId: string;
}

/** A TEMPORARY Account lives this long after it became temporary (contract/DECISIONS.md). */
export const TEMPORARY_ACCOUNT_LIFETIME_MS = 30 * 24 * 3_600_000;
