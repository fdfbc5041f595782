import { PDFParse } from 'pdf-parse';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { encodeCode128 } from './barcode.js';
import { renderCustomsForm } from './customs-form.js';
import { renderLabel } from './label.js';
import { renderManifest } from './manifest.js';
import type { LabelContent } from './model.js';
import { createGlyphCache } from './raster.js';

const createdAt = '2026-01-15T10:10:00.000Z';
const content: LabelContent = {
  specimen: true,
  carrier: { name: 'DHL Parcel' },
  service: { name: 'DHL Paket' },
  sender: { name: 'Erika Mustermann', companyName: 'Muster GmbH', street: 'Hauptstraße 5', postalCode: '10115', city: 'Berlin', countryCode: 'DE' },
  receiver: { name: 'Jürgen Groß', street: 'Marienplatz 1', postalCode: '80331', city: 'München', countryCode: 'DE' },
  parcel: { weight: 2.5, weightUnit: 'KG' },
  trackingNumber: '00340434161094000011',
  parcelIndex: 1,
  parcelCount: 2,
};

async function pdfText(bytes: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

const toBits = (modules: boolean[]) => modules.map((bar) => (bar ? '1' : '0')).join('');

describe('Code 128 encoding', () => {
  it('uses start C and the stop pattern for a numeric tracking number', () => {
    const bits = toBits(encodeCode128('00340434161094000011'));
    expect(bits.startsWith('11010011100')).toBe(true); // START C
    expect(bits.endsWith('1100011101011')).toBe(true); // STOP + final bar
    // start + 10 digit pairs + check + stop (13) = 11 × 12 + 13 modules.
    expect(bits).toHaveLength(11 * 12 + 13);
  });
});

describe('labels', () => {
  it('a PDF label carries the tracking number as text, the parties and the SPECIMEN mark', async () => {
    const label = renderLabel(content, { format: 'PDF', size: 'A6' }, createdAt);
    expect(label.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(label).toMatchObject({ mediaType: 'application/pdf', contentType: 'PDF', pages: 1 });
    const text = await pdfText(label.bytes);
    expect(text).toContain('00340434161094000011');
    expect(text).toContain('Jürgen Groß');
    expect(text).toContain('DHL Parcel');
    expect(text).toContain('Weight: 2.5 KG');
    expect(text).toContain('SPECIMEN');
    const production = await pdfText(renderLabel({ ...content, specimen: false }, { format: 'PDF', size: 'A6' }, createdAt).bytes);
    expect(production).not.toContain('SPECIMEN');
  });

  it('embeds the barcode as an image', () => {
    const pdf = renderLabel(content, { format: 'PDF', size: 'LABEL_4X6' }, createdAt).bytes.toString('latin1');
    expect(pdf).toMatch(/\/Subtype \/Image/);
  });

  it('gives the same bytes for the same input and clock, different bytes at another time', () => {
    for (const format of ['PDF', 'PNG', 'ZPL'] as const) {
      const one = renderLabel(content, { format, size: 'A6' }, createdAt).bytes;
      const two = renderLabel(content, { format, size: 'A6' }, createdAt).bytes;
      const later = renderLabel(content, { format, size: 'A6' }, '2026-01-15T10:11:00.000Z').bytes;
      expect(one.equals(two)).toBe(true);
      expect(one.equals(later)).toBe(false);
    }
  });

  it.each([
    ['LABEL_4X6', 203, 812, 1218],
    ['LABEL_4X6', undefined, 1200, 1800],
    ['A6', 300, 1239, 1749],
  ] as const)('a PNG label %s at %s dpi is %i×%i with a barcode', (size, dpi, width, height) => {
    const label = renderLabel(content, { format: 'PNG', size, resolutionDpi: dpi }, createdAt);
    expect(label.mediaType).toBe('image/png');
    const png = PNG.sync.read(label.bytes);
    expect([png.width, png.height]).toEqual([width, height]);
    // The barcode band (278..356 of 432 layout units) holds long black runs.
    const row = Math.round(height * (317 / 432)) * width * 4;
    let dark = 0;
    for (let x = 0; x < width; x++) if (png.data[row + x * 4] < 64) dark++;
    expect(dark).toBeGreaterThan(width / 5);
  });

  it('a ZPL label is one ^XA…^XZ format with a ^BC barcode of the tracking number', () => {
    const zpl = renderLabel({ ...content, receiver: { ...content.receiver, name: 'A^B~C_D' } }, { format: 'ZPL', size: 'LABEL_4X6' }, createdAt).bytes.toString();
    expect(zpl.startsWith('^XA')).toBe(true);
    expect(zpl.trimEnd().endsWith('^XZ')).toBe(true);
    expect(zpl).toMatch(/\^PW812\n\^LL1218/);
    expect(zpl).toMatch(/\^BCN,\d+,N,N,N\^FH\^FD00340434161094000011\^FS/);
    expect(zpl).toContain('^FH^FDA_5EB_7EC_5FD^FS');
    expect(zpl).toContain('SPECIMEN');
    expect(zpl).toContain('80331 Munchen');
  });

  it('renders fast enough for bookings of many parcels', () => {
    const timings: Record<string, number> = {};
    const glyphs = createGlyphCache();
    for (const format of ['PDF', 'PNG', 'ZPL'] as const) {
      renderLabel(content, { format, size: 'LABEL_4X6' }, createdAt, glyphs);
      const start = performance.now();
      for (let i = 0; i < 10; i++) {
        renderLabel({ ...content, trackingNumber: `0034043416109400${1000 + i}` }, { format, size: 'LABEL_4X6' }, createdAt, glyphs);
      }
      timings[format] = (performance.now() - start) / 10;
    }
    console.log(`ms per label (4x6): ${Object.entries(timings).map(([f, ms]) => `${f} ${ms.toFixed(1)}`).join(', ')}`);
    // Generous bounds (CI machines are shared); they catch a pathological slowdown, not noise.
    expect(timings.PDF).toBeLessThan(300);
    expect(timings.PNG).toBeLessThan(800);
    expect(timings.ZPL).toBeLessThan(50);
  });
});

describe('forms', () => {
  const sender = content.sender;
  const receiver = { name: 'John Smith', street: '10 Downing Street', postalCode: 'SW1A 2AA', city: 'London', countryCode: 'GB' };

  it('a customs form names the form, the lines, the totals and the declarant', async () => {
    const form = renderCustomsForm(
      {
        specimen: false,
        typeCodes: ['CN22'],
        carrier: { name: 'DHL Parcel' },
        sender,
        receiver,
        declarant: { firstName: 'Erika', lastName: 'Mustermann', city: 'Berlin' },
        currency: 'EUR',
        contentType: 'GIFT',
        lines: [
          { description: 'Paperback novel', quantity: 3, value: 37.5, hsCode: '490199', originCountryCode: 'DE', weight: 1.2 },
          { description: 'Tea', quantity: 1, value: 12.25 },
        ],
        trackingNumbers: ['00340434161094000011'],
      },
      createdAt,
    );
    const text = await pdfText(form.bytes);
    expect(text).toContain('CUSTOMS DECLARATION CN 22');
    expect(text).toContain('[X] Gift');
    expect(text).toContain('490199');
    expect(text).toContain('49.75 EUR');
    expect(text).toContain('Erika Mustermann (Berlin)');
  });

  it('a manifest lists every parcel and continues on further pages', async () => {
    const entries = Array.from({ length: 70 }, (_, i) => ({
      shipmentBookingId: `b${i}`,
      reference: `ORDER-${i}`,
      receiver,
      parcels: [{ trackingNumber: `T${String(i).padStart(5, '0')}`, weightKg: 1.5 }],
    }));
    const manifest = renderManifest(
      { specimen: false, carrier: { name: 'DHL Parcel' }, shipmentManifestId: 'm-1', shipmentDispatchId: 'd-1', pickupDate: '2026-01-16', entries },
      createdAt,
    );
    expect(manifest.pages).toBeGreaterThanOrEqual(2);
    const text = await pdfText(manifest.bytes);
    expect(text).toContain('T00000');
    expect(text).toContain('T00069');
    expect(text).toContain('Total weight: 105 kg');
  });
});
