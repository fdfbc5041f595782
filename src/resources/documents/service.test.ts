import { describe, expect, it } from 'vitest';
import { createClock } from '../../clock/clock.js';
import { createEventBus } from '../../events/event-bus.js';
import { createRandom } from '../../random/random.js';
import { createStore } from '../../store/store.js';
import type { LabelDocumentRequest } from './model.js';
import { createDocumentService } from './service.js';

/** The document service alone, on a fresh store, a manual clock and seed 1, as a mock builds it. */
function documentService() {
  const clock = createClock({ mode: 'manual' });
  const random = createRandom(1);
  const store = createStore();
  return { store, documents: createDocumentService({ store, clock, random, events: createEventBus({ clock, random }) }) };
}

const label = (trackingNumber: string): LabelDocumentRequest => ({
  format: 'PDF',
  size: 'A6',
  specimen: true,
  carrier: { name: 'DHL Parcel' },
  service: { name: 'DHL Paket' },
  sender: { name: 'Erika Mustermann', street: 'Hauptstraße 5', postalCode: '10115', city: 'Berlin', countryCode: 'DE' },
  receiver: { name: 'Max Muster', street: 'Marienplatz 1', postalCode: '80331', city: 'München', countryCode: 'DE' },
  parcel: { id: '5a1d2c3e-4b5f-4a6b-8c7d-9e0f1a2b3c4d', weight: 2.5, weightUnit: 'KG' },
  trackingNumber,
  shipmentBookingId: '9e5b6a7c-8f9d-4e0f-8a1b-3c4d5e6f7a8b',
});

describe('document service', () => {
  it('gives the same bytes for the same seed and clock in two mocks', () => {
    const [first, second] = [documentService(), documentService()];
    const one = first.documents.createLabel('a1', label('SAME'));
    const two = second.documents.createLabel('a1', label('SAME'));
    expect(first.documents.metaData('a1', one.id).checksum).toBe(second.documents.metaData('a1', two.id).checksum);
  });

  it('still serves documents stored with their bytes (state exported before documents kept recipes)', () => {
    const { store, documents } = documentService();
    const document = documents.createLabel('a1', label('OLD'));
    store.account('a1').collection<{ id: string; base64?: string }>('document-contents').update({ id: document.id, base64: Buffer.from('%PDF-old bytes').toString('base64') });
    expect(documents.data('a1', document.id).bytes.toString()).toBe('%PDF-old bytes');
  });
});
