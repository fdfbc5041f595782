import type { Catalogue } from '../../carrier-catalogue/model.js';

/**
 * The part of the carrier catalogue the operational families validate against (spec: carrier
 * data "is used to validate input"). A narrow view so tests can pass a small fake.
 */
export type CatalogueLookup = Pick<
  Catalogue,
  'carrier' | 'carriers' | 'service' | 'packingType' | 'customsDeclarationType' | 'dangerousGoodsDeclarationType'
>;
