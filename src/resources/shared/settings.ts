import type { Violation } from '../../errors/problem.js';

/** A carrier connectivity setting (contract: CarrierDefinitionSetting), returned as sent. */
export interface Setting {
  key: string;
  value: string;
}

/**
 * Violations for repeated setting keys: a key names one credential or option, so two values for
 * it would be ambiguous (contract/DECISIONS.md "settings secrets").
 * @example duplicateSettingKeys([{ key: 'user', value: 'a' }, { key: 'user', value: 'b' }]) // [{ field: 'body/settings/1/key', … }]
 */
export function duplicateSettingKeys(settings: Setting[] | undefined, at = 'body/settings'): Violation[] {
  const seen = new Map<string, number>();
  const out: Violation[] = [];
  (settings ?? []).forEach((setting, index) => {
    const first = seen.get(setting.key);
    if (first === undefined) seen.set(setting.key, index);
    else out.push({ field: `${at}/${index}/key`, message: `repeats the key '${setting.key}' of settings/${first}; each key may appear once` });
  });
  return out;
}
