/** Affiliate configuration (spec: "PUT /v1/affiliates/{affiliate-id}"). Fields: contract AffiliateConfig. */
export interface AffiliateConfigInput {
  billingGracePeriodDays?: number;
  checkoutUrlSuccess?: string;
  checkoutUrlFailure?: string;
}

export interface AffiliateConfig {
  id: string;
  billingGracePeriodDays: number;
  checkoutUrlSuccess?: string;
  checkoutUrlFailure?: string;
  updatedAt: string;
}

/** Service defaults an omitted field falls back to (contract/DECISIONS.md, "Affiliate service defaults"). */
export const AFFILIATE_DEFAULTS = { billingGracePeriodDays: 14 } as const;
