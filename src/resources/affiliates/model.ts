import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];

/** Affiliate configuration (spec: "PUT /v1/affiliates/{affiliate-id}"). Fields: contract AffiliateConfig. */
export type AffiliateConfigInput = Schemas['ReplaceAffiliateConfigRequest'];

export type AffiliateConfig = Schemas['AffiliateConfig'];

/** Service defaults an omitted field falls back to (contract/DECISIONS.md, "Affiliate service defaults"). */
export const AFFILIATE_DEFAULTS = { billingGracePeriodDays: 14 } as const;
