/**
 * Customs territories, for the `dutiable` flag of route entries: a route is dutiable when its
 * two countries lie in different customs territories (goods cross a customs border and need a
 * customs declaration). The EU is one customs union; Switzerland and Liechtenstein share one;
 * every other country is its own territory (GB since 2021, NO outside the EU customs union).
 */
export const EU_MEMBER_STATES: readonly string[] = [
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE',
  'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE',
];

const EU = new Set(EU_MEMBER_STATES);
const SWISS_UNION = new Set(['CH', 'LI']);

/** @example customsTerritoryOf('DE') // 'EU' */
export function customsTerritoryOf(country: string): string {
  if (EU.has(country)) return 'EU';
  if (SWISS_UNION.has(country)) return 'CH';
  return country;
}

/**
 * @example isDutiable('DE', 'FR') // false
 * @example isDutiable('DE', 'GB') // true
 */
export function isDutiable(from: string, to: string): boolean {
  return customsTerritoryOf(from) !== customsTerritoryOf(to);
}
