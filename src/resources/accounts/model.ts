import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** Account: the isolation unit of the spec ("Accounts" section). Fields: contract AccountRequest / AccountResponse. */
export type AccountType = 'NORMAL' | 'SHARED';
export type PersistenceType = 'PERMANENT' | 'TEMPORARY';

export interface AccountCompany {
  name: string;
  vatNumber: string;
  countryCode: string;
  city: string;
  postalCode: string;
  address: string;
}

export interface AccountContact {
  name: string;
  email: string;
  phone: string;
}

export type AccountInput = Schemas['AccountRequest'];

export interface Account {
  id: string;
  createdAt: string;
  updatedAt: string;
  alias?: string;
  company: AccountCompany;
  contact: AccountContact;
  enabled: boolean;
  meta?: Record<string, string>;
  persistence: { type: PersistenceType; expiresAt?: string };
  sources?: string[];
  type: AccountType;
}

/** Which company owns an account id: the global index that token issuing and auth consult. */
export interface AccountOwner {
  id: string;
  companyId: string;
}

/** A TEMPORARY Account lives this long after it became temporary (contract/DECISIONS.md). */
export const TEMPORARY_ACCOUNT_LIFETIME_MS = 30 * 24 * 3_600_000;
