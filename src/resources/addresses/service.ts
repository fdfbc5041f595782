import type { ResourceDeps } from '../shared/domain-deps.js';
import { createAccountResources } from '../shared/account-resources.js';
import type { Address, AddressInput } from './model.js';

/** Addresses: plain CRUD; other families (bookings, quotes, PUDO queries) look them up here. */
export function createAddressService(core: ResourceDeps) {
  return createAccountResources<AddressInput, Address>(core, {
    collection: 'addresses',
    topic: 'ADDRESS',
    label: 'Address',
    build: (input, meta) => ({ ...meta, ...input }),
  });
}

export type AddressService = ReturnType<typeof createAddressService>;
