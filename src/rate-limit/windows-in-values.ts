import { valuesUnderPrefix } from '../store/values-under-prefix.js';
import type { Window, WindowStore } from './rate-limiter.js';

/** Whether a stored value is a rate-limit window (a value written by an older mock may not be). */
export const isWindow = (value: unknown): value is Window =>
  typeof value === 'object' && value !== null && Number.isFinite((value as Window).startedAt) && Number.isFinite((value as Window).count);

/**
 * Rate-limit windows kept as entries of a key/value map under a prefix (src/store/values-under-prefix.ts).
 * @example createRequestLimits({ clock, principal, windows: { principals: windowsInValues(() => values, 'rate:p:'), … } })
 */
export function windowsInValues(values: () => Map<string, unknown>, prefix: string, scanIntervalMs?: number): WindowStore {
  return valuesUnderPrefix(values, prefix, isWindow, scanIntervalMs);
}
