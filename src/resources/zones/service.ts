import type { ResourceDeps } from '../shared/domain-deps.js';
import { ruleViolation } from '../../errors/problem.js';
import { createAccountResources } from '../shared/account-resources.js';
import type { Destination, Zone, ZoneInput } from './model.js';

/** Postal codes compare without spaces, hyphens or case ('sw1a 2aa' = 'SW1A2AA'). */
const normalize = (postalCode: string) => postalCode.replace(/[\s-]+/g, '').toUpperCase();

/**
 * Whether a destination lies in a zone: its country is listed and, when the zone has ranges
 * for that country, its postal code falls in one of them (bounds inclusive, string-compared).
 * @example zoneContains({ countryCodes: ['DE'], postalCodeRanges: [{ countryCode: 'DE', from: '80000', to: '87999' }] }, { countryCode: 'DE', postalCode: '80331' }) // true
 */
export function zoneContains(zone: Pick<Zone, 'countryCodes' | 'postalCodeRanges'>, destination: Destination): boolean {
  if (!zone.countryCodes.includes(destination.countryCode)) return false;
  const ranges = (zone.postalCodeRanges ?? []).filter((r) => r.countryCode === destination.countryCode);
  if (!ranges.length) return true;
  const code = normalize(destination.postalCode);
  return ranges.some((r) => normalize(r.from) <= code && code <= normalize(r.to));
}

/** A rule another family adds to zone deletion (Delivery Options keep their zones). */
export type ZoneRemovalGuard = (accountId: string, zone: Zone) => void;

/**
 * Zones: countries and postal-code ranges that Delivery Options are offered in.
 * @example const zone = zones.create(accountId, { name: 'Germany', countryCodes: ['DE'] });
 */
export function createZoneService(core: ResourceDeps) {
  const guards: ZoneRemovalGuard[] = [];
  const base = createAccountResources<ZoneInput, Zone>(core, {
    collection: 'zones',
    topic: 'ZONE',
    label: 'Zone',
    build: (input, meta) => ({ ...meta, ...input }),
    check(_accountId, input) {
      (input.postalCodeRanges ?? []).forEach((range, i) => {
        if (!input.countryCodes.includes(range.countryCode)) {
          throw ruleViolation(`body/postalCodeRanges/${i}/countryCode`, `${range.countryCode} is not one of the zone's countryCodes`);
        }
        if (normalize(range.from) > normalize(range.to)) {
          throw ruleViolation(`body/postalCodeRanges/${i}/from`, `from (${range.from}) sorts after to (${range.to})`);
        }
      });
    },
    checkDelete: (accountId, zone) => guards.forEach((guard) => guard(accountId, zone)),
  });

  return {
    ...base,
    /** Registers a rule checked before a zone is deleted. */
    addRemovalGuard(guard: ZoneRemovalGuard): void {
      guards.push(guard);
    },
    contains: zoneContains,
  };
}

export type ZoneService = ReturnType<typeof createZoneService>;
