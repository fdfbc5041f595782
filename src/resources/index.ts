import type { HandlerMap } from '../app/operation-handler.js';
import type { MockRuntime } from '../app/runtime.js';
import { accountRoutes } from './accounts/routes.js';
import { createAccountService } from './accounts/service.js';
import { addressRoutes } from './addresses/routes.js';
import { createAddressService } from './addresses/service.js';
import { affiliateRoutes } from './affiliates/routes.js';
import { createAffiliateService } from './affiliates/service.js';
import { createMockEventService } from './event-channels/mock-events.js';
import { eventChannelRoutes } from './event-channels/routes.js';
import { createEventChannelService } from './event-channels/service.js';
import { tokenRoutes } from './tokens/routes.js';
import { createTokenIssuer } from './tokens/service.js';

/**
 * The domain services of one mock instance, built once. Families that depend on others
 * receive them here (bookings need parcels, addresses, definitions, …).
 * Add a family: build its service below, then spread its routes in createOperationHandlers.
 */
export function createServices(runtime: MockRuntime) {
  const accounts = createAccountService(runtime);
  const tokens = createTokenIssuer(runtime, accounts);
  const affiliates = createAffiliateService(runtime);
  const addresses = createAddressService(runtime);
  const eventChannels = createEventChannelService(runtime);
  const mockEvents = createMockEventService(runtime);
  return { accounts, tokens, affiliates, addresses, eventChannels, mockEvents };
}

export type Services = ReturnType<typeof createServices>;

/** operationId → stateful handler. Operations missing here fall to the `unhandled` policy. */
export function createOperationHandlers(services: Services): HandlerMap {
  return {
    ...tokenRoutes(services.tokens),
    ...accountRoutes(services.accounts),
    ...affiliateRoutes(services.affiliates),
    ...addressRoutes(services.addresses),
    ...eventChannelRoutes(services.eventChannels, services.mockEvents),
  };
}
