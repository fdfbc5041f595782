import type { Principal } from '../../auth/principal.js';
import type { DomainDeps } from '../shared/domain-deps.js';
import { ProblemError } from '../../errors/problem.js';
import { compact } from '../../util/compact.js';
import { AFFILIATE_DEFAULTS, type AffiliateConfig, type AffiliateConfigInput } from './model.js';

/**
 * Affiliate configurations, stored in the global scope (an affiliate is above companies and
 * accounts). Affiliates themselves come from the credentials registry; an id there that was
 * never configured answers the defaults.
 *
 * @example
 * affiliates.replace(principal, affiliateId, { billingGracePeriodDays: 30 });
 */
export function createAffiliateService(core: Pick<DomainDeps, 'store' | 'clock' | 'events' | 'credentials'>) {
  const { store, clock, events, credentials } = core;
  const configs = () => store.global.collection<AffiliateConfig>('affiliate-configs');
  // A never-configured affiliate has had its defaults since the instance started.
  const startedAt = clock.nowIso();

  /**
   * Spec: "An Affiliate caller may update only its own affiliate id. An Admin caller may update
   * any." The own-id rule comes first, so an affiliate learns nothing about other ids.
   */
  function authorize(principal: Principal, affiliateId: string): void {
    if (principal.level === 'ADMIN') return;
    if (principal.level === 'AFFILIATE' && principal.affiliateId === affiliateId) return;
    throw new ProblemError('forbidden', {
      detail:
        principal.level === 'AFFILIATE'
          ? `An affiliate may read and change only its own configuration (${principal.affiliateId})`
          : 'Affiliate configurations need affiliate or admin credentials',
    });
  }

  function requireKnown(affiliateId: string): void {
    if (!credentials.affiliates.some((a) => a.affiliateId === affiliateId)) {
      throw new ProblemError('not-found', { detail: `Affiliate ${affiliateId} does not exist` });
    }
  }

  return {
    get(principal: Principal, affiliateId: string): AffiliateConfig {
      authorize(principal, affiliateId);
      requireKnown(affiliateId);
      return configs().get(affiliateId) ?? { id: affiliateId, ...AFFILIATE_DEFAULTS, updatedAt: startedAt };
    },

    /** Full replacement: omitted fields are cleared and fall back to the defaults. */
    replace(principal: Principal, affiliateId: string, input: AffiliateConfigInput): AffiliateConfig {
      authorize(principal, affiliateId);
      requireKnown(affiliateId);
      const config = compact<AffiliateConfig>({
        id: affiliateId,
        billingGracePeriodDays: input.billingGracePeriodDays ?? AFFILIATE_DEFAULTS.billingGracePeriodDays,
        checkoutUrlSuccess: input.checkoutUrlSuccess,
        checkoutUrlFailure: input.checkoutUrlFailure,
        updatedAt: clock.nowIso(),
      });
      const collection = configs();
      if (collection.has(affiliateId)) collection.update(config);
      else collection.insert(config);
      events.publish({ topic: 'AFFILIATE', type: 'UPDATED', payload: config });
      return config;
    },
  };
}

export type AffiliateService = ReturnType<typeof createAffiliateService>;
