import { describe, expect, it } from 'vitest';
import { loadCatalogue } from './load-catalogue.js';
import { createRandom } from '../random/random.js';
import { computeCheckDigit, fixedPrefix, generateSerial, isStagingSerial, isValidSerial, type CheckDigitAlgorithm } from './serial-numbers.js';

describe('check digit algorithms (published test vectors)', () => {
  it.each<[CheckDigitAlgorithm, string, string, string]>([
    ['MOD11', '47312482', '9', 'UPU S10 RR473124829SE'],
    ['MOD10', '00614141123456789', '0', 'GS1 SSCC 006141411234567890'],
    ['MOD10', '34043416109', '1', 'DHL Paket 340434161091'],
    ['UPS_1Z', '999AA1012345678', '4', 'UPS 1Z999AA10123456784'],
    ['FEDEX_MOD11', '01234567898', '3', 'FedEx Express 012345678983'],
    ['LUHN', '7992739871', '3', 'Luhn 79927398713'],
    ['ISO7064_MOD37_36', 'A12425GABC1234002', 'M', 'ISO 7064 MOD 37,36 (GRid A12425GABC1234002M)'],
    ['MOD7', '123456789', '1', '123456789 mod 7'],
  ])('%s of %s is %s (%s)', (algorithm, data, check) => {
    expect(computeCheckDigit(algorithm, data)).toBe(check);
  });

  it('maps the S10 remainders 11 → 5 and 10 → 0', () => {
    expect(computeCheckDigit('MOD11', '00000000')).toBe('5');
    // 8 × 7 = 56 ≡ 1 (mod 11) → 11 − 1 = 10 → 0
    expect(computeCheckDigit('MOD11', '00000008')).toBe('0');
  });

  it('refuses a wrong check character', () => {
    const format = { pattern: '^[A-Z]{2}[0-9]{9}[A-Z]{2}$', checkDigit: 'MOD11' as const, template: '@@########?SE', stagingTemplate: 'ZZ########?SE', checkFrom: 2 };
    expect(isValidSerial(format, 'RR473124829SE')).toBe(true);
    expect(isValidSerial(format, 'RR473124828SE')).toBe(false);
    expect(isValidSerial(format, 'RR47312482SE')).toBe(false);
  });
});

describe('every serial type of the catalogue', () => {
  const catalogue = loadCatalogue();
  const random = createRandom(42);

  it.each(catalogue.serialTypes.map((s) => [s.view.code, s] as const))('%s: example and generated numbers are valid', (_code, serial) => {
    expect(new RegExp(serial.view.pattern).test(serial.view.example)).toBe(true);
    expect(isValidSerial(serial.format, serial.view.example)).toBe(true);
    for (const side of ['PRODUCTION', 'STAGING'] as const) {
      for (let i = 0; i < 200; i++) {
        const value = generateSerial(serial.format, random, side);
        expect(isValidSerial(serial.format, value), `${side} ${value}`).toBe(true);
        expect(isStagingSerial(serial.format, value), `${side} ${value}`).toBe(side === 'STAGING');
      }
    }
  });

  it('keeps live and test prefixes apart', () => {
    for (const serial of catalogue.serialTypes) {
      const live = fixedPrefix(serial.format.template);
      const test = fixedPrefix(serial.format.stagingTemplate);
      expect(live.startsWith(test) || test.startsWith(live), serial.view.code).toBe(false);
    }
  });

  it('detects a changed digit in generated numbers', () => {
    for (const serial of catalogue.serialTypes.filter((s) => s.format.checkDigit !== 'NONE')) {
      const value = generateSerial(serial.format, random, 'PRODUCTION');
      const at = serial.format.template.indexOf('?') - 1;
      const passing = '0123456789'
        .split('')
        .filter((d) => d !== value[at])
        .map((d) => value.slice(0, at) + d + value.slice(at + 1))
        .filter((changed) => isValidSerial(serial.format, changed));
      // Both mod-11 schemes fold two remainders onto one check digit (S10: 0 and 6 → 5;
      // FedEx: 0 and 10 → 0), so one change in eleven can slip through; the others catch all.
      const tolerated = serial.format.checkDigit === 'MOD11' || serial.format.checkDigit === 'FEDEX_MOD11' ? 1 : 0;
      expect(passing.length, `${serial.view.code} ${value}: ${passing.join(', ')}`).toBeLessThanOrEqual(tolerated);
    }
  });
});
