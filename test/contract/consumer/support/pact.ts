import { fileURLToPath } from 'node:url';
import { MatchersV3 as M, PactV4 } from '@pact-foundation/pact';
import { createShippingClient, type ShippingClient, type ShippingClientOptions } from '../../../../src/client/create-shipping-client.js';

/**
 * What every consumer pact test shares: the participant names, the pact directory, example
 * values (which the provider replaces through provider-state injected values), matchers,
 * and the typed client wired to the Pact mock server with pre-seeded example tokens — so the
 * pacts exercise the real client code, not hand-written fetches.
 */
export const CONSUMER = 'ShippingClient';
export const WEBHOOK_CONSUMER = 'ShippingWebhookReceiver';
export const PROVIDER = 'ShippingPlatformAPI';
export const PACT_DIR = fileURLToPath(new URL('../../../../pacts', import.meta.url));

/** The fixed "now" of the consumer tests: the client judges token expiry against it. */
export const NOW = Date.parse('2026-01-15T13:30:00.000Z');
const FOUR_HOURS = 4 * 3_600_000;

export const EX = {
  companyId: '5f0c6a3e-1d2b-4c8e-9a7f-3b2d1e0c9a84',
  clientId: 'shipmock-demo-client',
  clientSecret: 'shipmock-demo-secret',
  accountId: '0b6f5f0e-2a7c-4c43-9a57-3f0d4d6a2b11',
  companyToken: 'example-company-token',
  accountToken: 'example-account-token',
  carrierId: '3c9f1a52-7d4e-4b8a-9e21-5f6a7b8c9d01',
  serviceId: '4d0a2b63-8e5f-4c9b-8f32-6a7b8c9d0e12',
  carrierDefinitionId: '6f2c4d85-0a7b-4eab-8b54-8c9d0e1f2a34',
  serviceDefinitionId: '7a3d5e96-1b8c-4fbc-9c65-9d0e1f2a3b45',
  shipmentChannelId: '8b4e6fa7-2c9d-4acd-8d76-0e1f2a3b4c56',
  addressId: '9c5f70b8-3d0e-4bde-9e87-1f2a3b4c5d67',
  receiverAddressId: 'ad6081c9-4e1f-4cef-8f98-2a3b4c5d6e78',
  parcelId: 'be7192da-5f2a-4d0f-90a9-3b4c5d6e7f89',
  shipmentBookingId: 'cf82a3eb-6a3b-4e1a-81ba-4c5d6e7f8a90',
  documentId: 'd093b4fc-7b4c-4f2b-92cb-5d6e7f8a9b01',
  shipmentDispatchId: 'e1a4c50d-8c5d-4a3c-a3dc-6e7f8a9b0c12',
  shipmentManifestId: 'f2b5d61e-9d6e-4b4d-b4ed-7f8a9b0c1d23',
  pudoPointId: '03c6e72f-0e7f-4c5e-85fe-8a9b0c1d2e34',
  purchaseId: '14d7f830-1f8a-4d6f-960f-9b0c1d2e3f45',
  missingId: '25e80941-2a9b-4e7a-a71a-0c1d2e3f4a56',
  trackingNumber: '000012345672',
  timestamp: '2026-01-15T13:30:00.000Z',
  pickupDate: '2026-01-16',
} as const;

/** Basic header value of the example client credentials. */
export const EXAMPLE_BASIC = Buffer.from(`${EX.clientId}:${EX.clientSecret}`).toString('base64');

// ── matchers ──────────────────────────────────────────────────────────────────────────────
/** ISO 8601 date-time as the contract's `format: date-time` allows (with or without fractions). */
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
export const isoDateTime = (example: string = EX.timestamp) => M.regex(ISO_DATE_TIME, example);
/** Carrier tracking numbers: upper-case letters and digits (S10, 1Z, SSCC, numeric). */
export const trackingNumber = (example: string = EX.trackingNumber) => M.regex(/^[0-9A-Z]{8,40}$/, example);
export const uuid = (example: string) => M.uuid(example);
/** An id the provider state supplies: `${name}` at verification, `example` in the consumer test. */
export const stateId = (name: string, example: string) => M.fromProviderState(`\${${name}}`, example);
export const statePath = (template: string, example: string) => M.fromProviderState(template, example);

export const jsonContentType = M.regex(/^application\/json(;.*)?$/, 'application/json');
export const problemContentType = M.regex(/^application\/problem\+json(;.*)?$/, 'application/problem+json');

export const accountAuth = { Authorization: M.fromProviderState('Bearer ${accountToken}', `Bearer ${EX.accountToken}`) };
export const companyAuth = { Authorization: M.fromProviderState('Bearer ${companyToken}', `Bearer ${EX.companyToken}`) };
export const basicAuth = { Authorization: M.fromProviderState('Basic ${basicCredentials}', `Basic ${EXAMPLE_BASIC}`) };
export const jsonRequest = { 'Content-Type': 'application/json' };

/** An RFC 7807 problem as the spec defines it; the `type` URI catalogue is the provider's own. */
export function problemBody(status: number, options: { violations?: boolean } = {}) {
  return {
    type: M.string('https://shipmock.dev/problems/not-found'),
    title: M.string('Resource not found'),
    status,
    ...(options.violations
      ? { properties: { violations: M.eachLike({ field: M.string('body/street'), message: M.string('is required') }) } }
      : {}),
  };
}

// ── pact and client ───────────────────────────────────────────────────────────────────────
export function createPact(consumer: string = CONSUMER): PactV4 {
  return new PactV4({ consumer, provider: PROVIDER, dir: PACT_DIR, logLevel: 'warn' });
}

/**
 * The typed client pointed at the Pact mock server, with the example Company and Account
 * tokens already cached (valid 4 h from NOW), so a test's only request is its interaction.
 */
export function consumerClient(baseUrl: string, options: Partial<ShippingClientOptions> = {}): ShippingClient {
  const client = createShippingClient({
    baseUrl,
    companyId: EX.companyId,
    clientId: EX.clientId,
    clientSecret: EX.clientSecret,
    accountId: EX.accountId,
    now: () => NOW,
    maxRetries: 0,
    ...options,
  });
  client.tokens.seed({ level: 'COMPANY' }, { accessToken: EX.companyToken, expiresAt: NOW + FOUR_HOURS });
  client.tokens.seed({ level: 'ACCOUNT', accountId: EX.accountId }, { accessToken: EX.accountToken, expiresAt: NOW + FOUR_HOURS });
  return client;
}

export { M };
