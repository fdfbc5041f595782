import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_CATALOGUE_PATH, catalogueIds, expandRoutes, loadCatalogue, type CatalogueFile } from './load-catalogue.js';
import { renderLogo } from '../rendering/logo.js';

const raw = (): CatalogueFile => JSON.parse(readFileSync(BUILT_IN_CATALOGUE_PATH, 'utf8'));

describe('the built-in catalogue', () => {
  const catalogue = loadCatalogue();

  it('models at least 8 carriers, each with several services that name one of its serial types', () => {
    expect(catalogue.carriers.length).toBeGreaterThanOrEqual(8);
    for (const carrier of catalogue.carriers) {
      expect(carrier.serviceIds.length, carrier.view.code).toBeGreaterThanOrEqual(3);
      for (const id of carrier.serviceIds) {
        const service = catalogue.service(id)!;
        expect(carrier.view.serialTypeIds).toContain(service.serialTypeId);
        expect(service.view.transitDaysMin).toBeLessThanOrEqual(service.view.transitDaysMax);
      }
    }
  });

  it('derives ids from codes only, so they are the same in every instance', () => {
    expect(catalogue.carrierByCode('UPS')!.view.id).toBe(catalogueIds.carrier('UPS'));
    expect(loadCatalogue().services.map((s) => s.view.id)).toEqual(catalogue.services.map((s) => s.view.id));
    const ids = [
      ...catalogue.carriers.map((c) => c.view.id),
      ...catalogue.services.map((s) => s.view.id),
      ...catalogue.serialTypes.map((s) => s.view.id),
      ...catalogue.packingTypes.map((p) => p.id),
      ...catalogue.documentTypes.map((d) => d.id),
      ...catalogue.customsDeclarationTypes.map((c) => c.id),
      ...catalogue.dangerousGoodsDeclarationTypes.map((d) => d.id),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is immutable', () => {
    expect(Object.isFrozen(catalogue.carriers[0].view)).toBe(true);
    expect(() => (catalogue.services as unknown[]).push({})).toThrow();
  });

  it('looks up routes and document types', () => {
    const international = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET_INTERNATIONAL');
    expect(catalogue.route(international, 'DE', 'NO')).toEqual({ from: 'DE', to: 'NO', dutiable: true, domestic: false });
    expect(catalogue.route(international, 'NO', 'DE')).toBeUndefined();
    expect(catalogue.documentTypeFor('LABEL', 'ZPL')).toMatchObject({ mediaType: 'application/x-zpl' });
  });
});

describe('expandRoutes', () => {
  it('expands @EU, skips same-country pairs in from/to groups and keeps the first duplicate', () => {
    const routes = expandRoutes([{ domestic: ['CH'] }, { from: ['CH'], to: ['@EU', 'CH', 'LI'] }, { from: ['CH'], to: ['DE'] }]);
    expect(routes[0]).toEqual({ from: 'CH', to: 'CH', dutiable: false, domestic: true });
    expect(routes).toHaveLength(1 + 27 + 1);
    expect(routes.find((r) => r.to === 'LI')).toEqual({ from: 'CH', to: 'LI', dutiable: false, domestic: false });
    expect(routes.find((r) => r.to === 'DE')).toEqual({ from: 'CH', to: 'DE', dutiable: true, domestic: false });
  });
});

describe('a broken fixture fails loudly at start', () => {
  it.each([
    ['a serial example with a wrong check digit', (f: CatalogueFile) => { f.carriers[0].serialTypes[0].example = f.carriers[0].serialTypes[0].example.replace(/.$/, (d) => String((Number(d) + 1) % 10)); }, /fails its pattern or check digit/],
    ['a service naming an unknown serial type', (f: CatalogueFile) => { f.carriers[0].services[0].serialType = 'NOPE'; }, /unknown serial type NOPE/],
    ['a duplicate carrier code', (f: CatalogueFile) => { f.carriers[1].code = f.carriers[0].code; }, /duplicate carrier code/],
    ['a service without routes', (f: CatalogueFile) => { f.carriers[0].services[0].routes = []; }, /has no routes/],
  ])('%s', (_name, breakIt, message) => {
    const file = raw();
    breakIt(file);
    expect(() => loadCatalogue(file)).toThrow(message);
  });
});

describe('logos', () => {
  it('renders a valid, deterministic PNG per design', () => {
    const design = { background: '#FFCC00', foreground: '#D40511', text: 'DHL', subtext: 'PAKET' };
    const first = renderLogo(design);
    const image = PNG.sync.read(first.png);
    expect([image.width, image.height]).toEqual([192, 96]);
    expect(renderLogo(design)).toEqual(first);
    expect(renderLogo({ ...design, text: 'DPD' }).etag).not.toBe(first.etag);
    // Corners are transparent (rounded badge), the centre line carries ink in the text colour.
    expect(image.data[3]).toBe(0);
    const row = Math.floor(96 * 0.4);
    const inked = Array.from({ length: 192 }, (_, x) => [...image.data.subarray((row * 192 + x) * 4, (row * 192 + x) * 4 + 3)]).some(([r, g, b]) => r === 0xd4 && g === 0x05 && b === 0x11);
    expect(inked).toBe(true);
  });

  it('refuses a colour that is not #RRGGBB', () => {
    expect(() => renderLogo({ background: 'yellow', foreground: '#000000', text: 'X' })).toThrow(/#RRGGBB/);
  });
});
