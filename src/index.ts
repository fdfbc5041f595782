/**
 * shipmock's public API. Everything not exported here is internal.
 *
 * @example
 * import { startMock } from 'shipmock';
 * const mock = await startMock({ port: 0, seed: 1 });
 * console.log(mock.url, mock.credentials.clientId);
 * await mock.close();
 */

// Running a mock
export { startMock, type StartOptions, type RunningMock } from './server/start-mock.js';
export { createRuntime, type MockRuntime } from './app/runtime.js';
export { createApp, type MockApp } from './app/create-app.js';
export type { MockOptions, LogLevel } from './config/options.js';

// Contract access
export { loadContract, type Contract, type ContractOperation } from './contract/load-contract.js';
export { createValidators, type ContractValidators } from './contract/validators.js';

// Errors
export { PROBLEM_TYPES, PROBLEM_BASE_URI, type ProblemSlug } from './errors/problem-types.js';
export type { ProblemBody, Violation } from './errors/problem.js';

// Typed client (types generated from contract/openapi.yaml)
export { createShippingClient, type ShippingClient, type ShippingClientOptions, type ShippingApi } from './client/create-shipping-client.js';
export { ShippingApiError, type Problem } from './client/errors.js';
export type { TokenManager, TokenScope, CachedToken } from './client/token-manager.js';
export { parseShippingEvent, isShipmentBookingEvent, isUsageEvent, type ShippingEvent, type ShipmentBookingEvent, type UsageEvent } from './client/events.js';
export type { paths as ShippingApiPaths, components as ShippingApiComponents, operations as ShippingApiOperations } from './client/schema.js';

// Webhooks: verify deliveries in your receiver; read the delivery log in-process (mock.runtime.webhooks)
export { verifySignature as verifyWebhookSignature, signatureHeader as webhookSignatureHeader } from './events/webhook-signature.js';
export type { WebhookOptions } from './events/webhook-options.js';
export type { Delivery, DeliveryAttempt, DeliveryStatus, DeliveryPage, DeliveryQuery } from './events/delivery-log.js';
export type { WebhookDispatcher } from './events/webhook-dispatcher.js';
export type { EventEnvelope } from './events/event-bus.js';

// Simulated carriers: inject faults into PRODUCTION carrier calls (mock.runtime.carrierInterceptors)
export { carrierLatency, carrierOutage, carrierRejection, carrierTimeout, type CarrierMatch } from './carriers/faults.js';
export { CarrierError, type CarrierErrorKind, type CarrierCall, type CarrierInterceptor, type CarrierInterceptors, type CarrierCallRecord } from './carriers/index.js';
export { isValidSerial, computeCheckDigit, type CheckDigitAlgorithm, type SerialFormat } from './carriers/serial-numbers.js';
export type { Catalogue } from './catalogue/model.js';

// Time
export { parseDuration, type Clock } from './clock/clock.js';
