import type { ResourceDeps } from '../shared/domain-deps.js';
import { ruleViolation } from '../../errors/problem.js';
import { createAccountResources } from '../shared/account-resources.js';
import { createBookingReferences } from '../shared/booking-references.js';
import type { CatalogueLookup } from '../shared/catalogue-lookup.js';
import type { CustomsDeclaration, CustomsDeclarationInput } from './model.js';

/**
 * Customs Declarations: `types` must be Customs Declaration Types of the carrier catalogue
 * (contract/DECISIONS.md '"types" semantics'). Once a Shipment Booking references one
 * (`markReferenced`), it can no longer be replaced or deleted.
 *
 * @example
 * const declaration = customs.assertUsable(accountId, body.customsDeclarationId, 'body/customsDeclarationId');
 * customs.markReferenced(accountId, declaration.id, bookingId);
 */
export function createCustomsDeclarationService(core: ResourceDeps, deps: { catalogue: CatalogueLookup }) {
  const references = createBookingReferences(core, 'customs-declaration-references');

  const assertNotReferenced = (accountId: string, declaration: CustomsDeclaration, verb: string) => {
    const [bookingId] = references.bookingsOf(accountId, declaration.id);
    if (bookingId) {
      throw ruleViolation('path/customs-declaration-id', `Customs Declaration ${declaration.id} is referenced by Shipment Booking ${bookingId} and cannot be ${verb}`);
    }
  };

  const base = createAccountResources<CustomsDeclarationInput, CustomsDeclaration>(core, {
    collection: 'customs-declarations',
    topic: 'CUSTOMS_DECLARATION',
    label: 'Customs Declaration',
    build: (input, meta) => ({ ...meta, ...input }),
    check(accountId, input, previous) {
      if (previous) assertNotReferenced(accountId, previous, 'replaced');
      input.types.forEach((typeId, i) => {
        if (!deps.catalogue.customsDeclarationType(typeId)) {
          throw ruleViolation(`body/types/${i}`, `Customs Declaration Type ${typeId} is not in the carrier catalogue`);
        }
      });
    },
    checkDelete: (accountId, declaration) => assertNotReferenced(accountId, declaration, 'deleted'),
  });

  return {
    ...base,
    remove(accountId: string, id: string): CustomsDeclaration {
      const removed = base.remove(accountId, id);
      references.forget(accountId, id);
      return removed;
    },
    /** The declaration a request body names, or a 400 naming `field`. */
    assertUsable(accountId: string, id: string, field: string): CustomsDeclaration {
      const declaration = base.find(accountId, id);
      if (!declaration) throw ruleViolation(field, `Customs Declaration ${id} does not exist in this account`);
      return declaration;
    },
    /** Freezes the declaration: a booking references it. */
    markReferenced: (accountId: string, id: string, shipmentBookingId: string) => references.mark(accountId, id, shipmentBookingId),
    /** Unfreezes it for one booking (e.g. a cancelled booking). */
    releaseReference: (accountId: string, id: string, shipmentBookingId: string) => references.release(accountId, id, shipmentBookingId),
    /** Ids of the bookings referencing the declaration. */
    referencedBy: (accountId: string, id: string) => references.bookingsOf(accountId, id),
  };
}

export type CustomsDeclarationService = ReturnType<typeof createCustomsDeclarationService>;
