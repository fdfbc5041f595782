import type { DocumentParty, LabelParcel } from './model.js';

/**
 * The printed lines of a party, in the order a postal address is written.
 * @example partyLines({ name: 'Erika', street: 'Hauptstr. 5', postalCode: '10115', city: 'Berlin', countryCode: 'DE' })
 * // ['Erika', 'Hauptstr. 5', '10115 Berlin', 'DE']
 */
export function partyLines(party: DocumentParty): string[] {
  const cityLine = [party.postalCode, party.city, party.stateCode].filter(Boolean).join(' ');
  return [party.companyName, party.name, party.street, party.street2, cityLine, party.countryCode].filter(
    (line): line is string => typeof line === 'string' && line.length > 0,
  );
}

/**
 * A weight as printed on labels and manifests: at most three decimals, no trailing zeros.
 * @example formatWeight(2.5, 'KG') // '2.5 KG'
 */
export function formatWeight(weight: number, unit: string): string {
  return `${Number(weight.toFixed(3))} ${unit}`;
}

/** Converts a parcel weight to kilograms (LB × 0.45359237, the international pound). */
export function weightInKg(parcel: Pick<LabelParcel, 'weight' | 'weightUnit'>): number {
  return parcel.weightUnit === 'LB' ? parcel.weight * 0.45359237 : parcel.weight;
}

/** A money amount with two decimals, e.g. `formatAmount(37.5, 'EUR') // '37.50 EUR'`. */
export function formatAmount(amount: number, currency: string): string {
  return `${amount.toFixed(2)} ${currency}`;
}

const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/**
 * Makes text printable with the PDF standard fonts (WinAnsi encoding): characters outside it
 * lose their accents (ł → l is not decomposable, so it becomes '?'), control characters go.
 * @example toWinAnsi('Łódź') // '?ódz'
 */
export function toWinAnsi(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) continue;
    if (code <= 0xff || WIN_ANSI_EXTRA.has(char)) {
      out += char;
      continue;
    }
    const base = char.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
    out += base.length === 1 && base.codePointAt(0)! <= 0xff ? base : '?';
  }
  return out;
}

/**
 * Text for raster and ZPL output, where only ASCII is safe: accents are dropped, German
 * sharp s and umlaut ligatures are spelled out, anything else becomes '?'.
 * @example toAscii('Müller Straße') // 'Muller Strasse'
 */
export function toAscii(text: string): string {
  let out = '';
  for (const char of text.replace(/ß/g, 'ss').replace(/Æ/g, 'AE').replace(/æ/g, 'ae').replace(/Ø/g, 'O').replace(/ø/g, 'o')) {
    const code = char.codePointAt(0)!;
    if (code >= 0x20 && code < 0x7f) {
      out += char;
      continue;
    }
    const base = char.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
    out += base.length === 1 && base.codePointAt(0)! < 0x7f ? base : '?';
  }
  return out;
}

/** Shortens a line to `max` characters ending in '...', so long names never overflow a box. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 3))}...`;
}
