import type { components } from '../client/schema.js';
import type { Random } from '../random/random.js';

/**
 * Tracking-number formats and their check digits. Every Serial Type of the catalogue names one
 * algorithm; generated numbers and the catalogue's `example` values are checked with the same
 * functions, so a client validating our numbers with the published algorithm always agrees.
 * The algorithms are the contract's (SerialType.checkDigit).
 */
export type CheckDigitAlgorithm = components['schemas']['SerialType']['checkDigit'];

/**
 * The generation recipe of a serial type. A template is read character by character:
 * `#` a random digit, `@` a random capital letter, `*` a random digit or capital letter,
 * `?` the check character, anything else literally. The check character covers the
 * characters from `checkFrom` up to the `?`.
 */
export interface SerialFormat {
  pattern: string;
  checkDigit: CheckDigitAlgorithm;
  /** Template of live (PRODUCTION) numbers. */
  template: string;
  /** Template of test (STAGING) numbers: same shape, a recognisable fixed prefix. */
  stagingTemplate: string;
  /** First character covered by the check character (e.g. 2 for UPU S10 and UPS 1Z). */
  checkFrom?: number;
}

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** GS1 MOD10: weights 3,1,3,… from the rightmost data digit (GS1 General Specifications §7.9). */
function gs1Mod10(data: string): string {
  let sum = 0;
  for (let i = 0; i < data.length; i++) {
    const digit = Number(data[data.length - 1 - i]);
    sum += digit * (i % 2 === 0 ? 3 : 1);
  }
  return String((10 - (sum % 10)) % 10);
}

/** UPU S10 (UPU standard S10 §5.2): weights 8,6,4,2,3,5,9,7 over the 8 serial digits. */
function upuMod11(data: string): string {
  const weights = [8, 6, 4, 2, 3, 5, 9, 7];
  if (data.length !== weights.length) return 'X';
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(data[i]) * weights[i];
  const check = 11 - (sum % 11);
  return String(check === 10 ? 0 : check === 11 ? 5 : check);
}

/** DHL Express air waybill: the 9-digit number modulo 7. */
function mod7(data: string): string {
  return String(Number(BigInt(data) % 7n));
}

function luhn(data: string): string {
  let sum = 0;
  for (let i = 0; i < data.length; i++) {
    let digit = Number(data[data.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return String((10 - (sum % 10)) % 10);
}

/** ISO/IEC 7064 MOD 37,36 (hybrid system), as on DPD parcel labels. */
function iso7064Mod37_36(data: string): string {
  const modulus = 36;
  let product = modulus;
  for (const char of data) {
    let sum = (product + ALNUM.indexOf(char)) % modulus;
    if (sum === 0) sum = modulus;
    product = (sum * 2) % (modulus + 1);
  }
  return ALNUM[(modulus + 1 - product) % modulus];
}

/** UPS 1Z: letters map to (code − 63) mod 10; odd positions + 2 × even positions; 10 − sum mod 10. */
function ups1z(data: string): string {
  let sum = 0;
  for (let i = 0; i < data.length; i++) {
    const char = data[i];
    const value = char >= '0' && char <= '9' ? Number(char) : (char.charCodeAt(0) - 63) % 10;
    sum += i % 2 === 0 ? value : 2 * value;
  }
  return String((10 - (sum % 10)) % 10);
}

/** FedEx Express 12-digit: weights 1,3,7 from the rightmost data digit, sum mod 11, 10 → 0. */
function fedexMod11(data: string): string {
  const weights = [1, 3, 7];
  let sum = 0;
  for (let i = 0; i < data.length; i++) sum += Number(data[data.length - 1 - i]) * weights[i % 3];
  return String((sum % 11) % 10);
}

const ALGORITHMS: Record<Exclude<CheckDigitAlgorithm, 'NONE'>, (data: string) => string> = {
  MOD10: gs1Mod10,
  MOD11: upuMod11,
  MOD7: mod7,
  LUHN: luhn,
  ISO7064_MOD37_36: iso7064Mod37_36,
  UPS_1Z: ups1z,
  FEDEX_MOD11: fedexMod11,
};

/**
 * The check character of `data` under an algorithm.
 * @example computeCheckDigit('MOD11', '47312482') // '9' (UPU S10: RR473124829SE)
 */
export function computeCheckDigit(algorithm: CheckDigitAlgorithm, data: string): string {
  if (algorithm === 'NONE') return '';
  return ALGORITHMS[algorithm](data);
}

/**
 * Whether `value` is a valid serial of the format: it matches the pattern and, unless the
 * algorithm is NONE, its check character is right.
 * @example isValidSerial({ pattern: '^[A-Z]{2}[0-9]{9}[A-Z]{2}$', checkDigit: 'MOD11', checkFrom: 2, … }, 'RR473124829SE') // true
 */
export function isValidSerial(format: SerialFormat, value: string): boolean {
  if (!new RegExp(format.pattern).test(value)) return false;
  if (format.checkDigit === 'NONE') return true;
  const at = format.template.indexOf('?');
  if (at < 0) return false;
  const data = value.slice(format.checkFrom ?? 0, at);
  return value[at] === computeCheckDigit(format.checkDigit, data);
}

/**
 * Draws one serial from a template with the seeded random and fills in the check character.
 * @example generateSerial({ …, template: 'TT########?GB', checkFrom: 2 }, random, 'PRODUCTION') // 'TT40719356 3GB' without the space
 */
export function generateSerial(format: SerialFormat, random: Random, side: 'STAGING' | 'PRODUCTION'): string {
  const template = side === 'STAGING' ? format.stagingTemplate : format.template;
  // Characters joined once (a flat string), not concatenated one by one: tracking numbers are
  // stored with every booking, tracker and label, and a rope of pieces costs ten times the text.
  const chars: string[] = [];
  for (const char of template) {
    if (char === '#') chars.push(DIGITS[random.int(0, 9)]);
    else if (char === '@') chars.push(LETTERS[random.int(0, 25)]);
    else if (char === '*') chars.push(ALNUM[random.int(0, 35)]);
    else chars.push(char);
  }
  const at = chars.indexOf('?');
  if (at >= 0) chars[at] = String(computeCheckDigit(format.checkDigit, chars.slice(format.checkFrom ?? 0, at).join('')));
  return chars.join('');
}

/**
 * Whether a serial was issued from the STAGING template (its fixed prefix), i.e. a test number
 * no real carrier knows.
 * @example isStagingSerial({ stagingTemplate: 'ZZ########?GB', … }, 'ZZ123456785GB') // true
 */
export function isStagingSerial(format: SerialFormat, value: string): boolean {
  const prefix = fixedPrefix(format.stagingTemplate);
  return value.length === format.stagingTemplate.length && value.startsWith(prefix) && isValidSerial(format, value);
}

/** The literal characters a template starts with (its recognisable prefix). */
export function fixedPrefix(template: string): string {
  const end = template.search(/[#@*?]/);
  return end < 0 ? template : template.slice(0, end);
}
