import type { components } from '../client/schema.js';
import type { PublicApiSteps, StateAccount } from './public-api-steps.js';
import { StateSetupError } from './public-api-steps.js';
import type { WebhookInbox } from './webhook-inbox.js';

/** Values a state hands to the verifier for `fromProviderState` expressions (`${accountId}`, …). */
export type StateValues = Record<string, string>;
export type StateParams = Record<string, unknown>;

/**
 * What a target can do beyond its public API. shipmock has a control plane (clock, rate
 * limits); a real service has none, so states that need one are skipped there, with the reason.
 */
export type Capability = 'clock' | 'rate-limit' | 'webhooks';

export interface TargetControl {
  readonly kind: 'shipmock' | 'real';
  readonly capabilities: ReadonlySet<Capability>;
  /** Moves the provider's clock forward (capability 'clock'). */
  advanceClock?(ms: number): Promise<void>;
  /** Lets one more request of the account through, then answers 429 (capability 'rate-limit'); returns the undo. */
  exhaustRateLimit?(account: StateAccount): Promise<() => Promise<void>>;
  /** The provider's current date (YYYY-MM-DD), for dates a request must not place in the past. */
  today(): Promise<string>;
}

/** What a state setup works with; `values` and `captured` are filled in as it goes. */
export interface StateRun {
  steps: PublicApiSteps;
  control: TargetControl;
  inbox?: WebhookInbox;
  /** Undo actions run at teardown, newest first. */
  undo: (() => Promise<void>)[];
  /** The webhook delivery a message state captured, for the message provider. */
  captured?: { body: unknown; contentType: string };
}

export interface ProviderStateDefinition {
  /** Capabilities beyond the public API; without them the state is skipped for the target. */
  requires?: Capability[];
  /** Why it needs them (shown when skipped). */
  because?: string;
  setup(run: StateRun, params: StateParams): Promise<StateValues>;
}

const DAY = 86_400_000;
const str = (params: StateParams, name: string, fallback: string) => (typeof params[name] === 'string' ? (params[name] as string) : fallback);
const num = (params: StateParams, name: string, fallback: number) => (typeof params[name] === 'number' ? (params[name] as number) : fallback);

/** Every state starts here: company credentials and token, a fresh account and its token. */
async function baseAccount(run: StateRun, alias = 'Warehouse Berlin') {
  const { steps } = run;
  const companyToken = await steps.companyToken();
  const account = await steps.createAccount(alias);
  const values: StateValues = {
    companyId: steps.companyId,
    basicCredentials: steps.basicCredentials,
    wrongBasicCredentials: steps.wrongBasicCredentials,
    companyToken,
    accountId: account.accountId,
    accountToken: account.accountToken,
  };
  return { account, values };
}

async function route(run: StateRun, params: StateParams) {
  const base = await baseAccount(run);
  const choice = await run.steps.findRoute(base.account, str(params, 'routeFrom', 'DE'), str(params, 'routeTo', 'DE'));
  return { ...base, choice, values: { ...base.values, carrierId: choice.carrierId, serviceId: choice.serviceId } };
}

async function readyToBook(run: StateRun, params: StateParams) {
  const { steps } = run;
  const r = await route(run, params);
  const carrierDefinitionId = await steps.createCarrierDefinition(r.account, r.choice.carrierId);
  const serviceDefinitionId = await steps.createServiceDefinition(r.account, carrierDefinitionId, r.choice.serviceId);
  const shipmentChannelId = await steps.createShipmentChannel(r.account);
  const senderAddressId = await steps.createAddress(r.account, str(params, 'routeFrom', 'DE'), 'Muster GmbH');
  const receiverAddressId = await steps.createAddress(r.account, str(params, 'routeTo', 'DE'), 'Erika Mustermann');
  const parcelIds: string[] = [];
  for (let i = 0; i < num(params, 'parcels', 1); i++) parcelIds.push(await steps.createParcel(r.account, 1.5));
  const parcelId = parcelIds[0];
  const booking: components['schemas']['ShipmentBookingRequest'] = {
    serviceDefinitionId,
    shipmentChannelId,
    parties: [
      { role: 'SENDER', entityType: 'ADDRESS', id: senderAddressId },
      { role: 'RECEIVER', entityType: 'ADDRESS', id: receiverAddressId },
    ],
    parcelIds,
    reference: 'ORDER-1001',
  };
  return {
    ...r,
    booking,
    values: { ...r.values, carrierDefinitionId, serviceDefinitionId, shipmentChannelId, senderAddressId, receiverAddressId, parcelId },
  };
}

async function booked(run: StateRun, params: StateParams) {
  const ready = await readyToBook(run, params);
  const booking = await run.steps.createBooking(ready.account, ready.booking);
  const first = booking.parcels[0];
  if (!first?.labelDocumentId || !first.trackingNumber) throw new StateSetupError(`booking ${booking.id} has no label or tracking number`);
  const tomorrow = addDays(await run.control.today(), 1);
  return {
    ...ready,
    shipment: booking,
    values: {
      ...ready.values,
      shipmentBookingId: booking.id,
      documentId: first.labelDocumentId,
      trackingNumber: first.trackingNumber,
      pickupDate: tomorrow,
    },
  };
}

async function dispatched(run: StateRun, params: StateParams) {
  const b = await booked(run, params);
  const shipmentDispatchId = await run.steps.createDispatch(b.account, b.values.carrierDefinitionId, [b.values.shipmentBookingId], b.values.pickupDate);
  return { ...b, values: { ...b.values, shipmentDispatchId } };
}

/** Subscribes a fresh Event Channel of the account to `topics`, delivering to the verifier's inbox. */
async function subscribe(run: StateRun, account: StateAccount, topics: components['schemas']['EventTopic'][]) {
  if (!run.inbox) throw new StateSetupError('no webhook inbox: message states need one');
  await run.steps.createEventChannel(account, topics, run.inbox.url);
}

/** Waits for the account's delivery of topic/type and keeps it for the message provider. */
async function capture(run: StateRun, accountId: string, topic: string, type: string, whileWaiting?: () => Promise<void>) {
  const delivery = await run.inbox!.waitFor(
    (event) => event.accountId === accountId && event.topic === topic && event.type === type,
    { timeoutMs: 10_000, whileWaiting },
  );
  run.captured = { body: delivery.body, contentType: delivery.contentType };
}

/** @example addDays('2026-01-31', 1) // '2026-02-01' */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
}

/**
 * The provider states the consumer pacts use, implemented through the public API only
 * (create the account, address, parcel, booking the state needs; the run's accounts are
 * deleted at teardown). States that need more — time travel, a forced rate limit — say so in
 * `requires`, and are skipped on targets that cannot do it.
 *
 * @example
 * const values = await PROVIDER_STATES['an address exists'].setup(run, { countryCode: 'DE' }); // { accountToken, addressId, … }
 */
export const PROVIDER_STATES: Record<string, ProviderStateDefinition> = {
  'the company has client credentials': {
    async setup(run) {
      const { steps } = run;
      const companyToken = await steps.companyToken();
      // Accounts the interaction itself creates (POST /v1/accounts) are deleted at teardown.
      const before = new Set(await steps.newestAccountIds());
      run.undo.push(async () => {
        for (const id of await steps.newestAccountIds()) if (!before.has(id)) await steps.deleteAccount(id);
      });
      return {
        companyId: steps.companyId,
        basicCredentials: steps.basicCredentials,
        wrongBasicCredentials: steps.wrongBasicCredentials,
        companyToken,
      };
    },
  },

  'an account exists': {
    async setup(run, params) {
      return (await baseAccount(run, str(params, 'alias', 'Warehouse Berlin'))).values;
    },
  },

  'the Account token has expired': {
    requires: ['clock'],
    because: 'a token only expires after 4 hours; only a target with a controllable clock can get there during a test run',
    async setup(run) {
      const { values } = await baseAccount(run);
      await run.control.advanceClock!(4 * 3_600_000 + 60_000);
      return values;
    },
  },

  'the rate limit of the account is exhausted': {
    requires: ['rate-limit'],
    because: 'exhausting a real rate limit means flooding the service; only a target with a control plane can lower it for one account',
    async setup(run) {
      const { account, values } = await baseAccount(run);
      run.undo.push(await run.control.exhaustRateLimit!(account));
      return values;
    },
  },

  'carrier data serves a route': {
    async setup(run, params) {
      return (await route(run, params)).values;
    },
  },

  'carrier definitions exist': {
    async setup(run, params) {
      const r = await route(run, { routeFrom: 'DE', routeTo: 'DE', ...params });
      const group = str(params, 'group', 'EU');
      const ids: string[] = [];
      for (let i = 0; i < num(params, 'count', 1); i++) ids.push(await run.steps.createCarrierDefinition(r.account, r.choice.carrierId, `DHL Parcel ${group} ${i + 1}`, group));
      return { ...r.values, carrierDefinitionId: ids[0] };
    },
  },

  'an address exists': {
    async setup(run, params) {
      const { account, values } = await baseAccount(run);
      return { ...values, addressId: await run.steps.createAddress(account, str(params, 'countryCode', 'DE')) };
    },
  },

  'an address exists in another account': {
    async setup(run, params) {
      const { values } = await baseAccount(run);
      const other = await run.steps.createAccount('Another warehouse');
      return { ...values, otherAddressId: await run.steps.createAddress(other, str(params, 'countryCode', 'DE')) };
    },
  },

  'a parcel exists': {
    async setup(run, params) {
      const { account, values } = await baseAccount(run);
      return { ...values, parcelId: await run.steps.createParcel(account, num(params, 'weight', 1.5)) };
    },
  },

  'the account is ready to book': {
    async setup(run, params) {
      return (await readyToBook(run, params)).values;
    },
  },

  'a shipment booking exists': {
    async setup(run, params) {
      return (await booked(run, params)).values;
    },
  },

  'an open shipment dispatch exists': {
    async setup(run, params) {
      return (await dispatched(run, params)).values;
    },
  },

  'a shipment manifest exists': {
    async setup(run, params) {
      const d = await dispatched(run, params);
      return { ...d.values, shipmentManifestId: await run.steps.createManifest(d.account, d.values.shipmentDispatchId) };
    },
  },

  'delivery options cover a route': {
    async setup(run, params) {
      const ready = await readyToBook(run, params);
      const zoneId = await run.steps.createZone(ready.account, [str(params, 'routeTo', 'DE')]);
      await run.steps.createDeliveryOption(ready.account, ready.values.serviceDefinitionId, [zoneId]);
      return ready.values;
    },
  },

  'an account has used billable operations': {
    async setup(run, params) {
      const b = await booked(run, params);
      for (let i = 0; i < num(params, 'pudoQueries', 1); i++) await run.steps.queryPudoPoints(b.account, b.values.senderAddressId);
      return b.values;
    },
  },

  // ── message states: trigger the event for real and capture its webhook delivery ──────────
  'a shipment booking was created': {
    requires: ['webhooks'],
    because: 'the provider must be able to reach the verifier’s webhook inbox (pass --webhook-public-url)',
    async setup(run, params) {
      const ready = await readyToBook(run, params);
      await subscribe(run, ready.account, ['SHIPMENT_BOOKING']);
      await run.steps.createBooking(ready.account, ready.booking);
      await capture(run, ready.account.accountId, 'SHIPMENT_BOOKING', 'CREATED');
      return ready.values;
    },
  },

  'a parcel was booked': {
    requires: ['webhooks'],
    because: 'the provider must be able to reach the verifier’s webhook inbox (pass --webhook-public-url)',
    async setup(run, params) {
      const ready = await readyToBook(run, params);
      await subscribe(run, ready.account, ['PARCEL']);
      await run.steps.createBooking(ready.account, ready.booking);
      await capture(run, ready.account.accountId, 'PARCEL', 'USAGE');
      return ready.values;
    },
  },

  'a tracker was updated': {
    requires: ['webhooks', 'clock'],
    because: 'a tracker changes when the carrier reports, hours after booking; only a target with a controllable clock gets there during a test run',
    async setup(run, params) {
      const b = await booked(run, params);
      await subscribe(run, b.account, ['TRACKER']);
      await run.steps.createTracker(b.account, b.values.trackingNumber);
      // The carrier reports on the provider's clock: move it on until the tracker changes.
      await capture(run, b.account.accountId, 'TRACKER', 'UPDATED', () => run.control.advanceClock!(6 * 3_600_000));
      return b.values;
    },
  },

  'a mock event was created': {
    requires: ['webhooks'],
    because: 'the provider must be able to reach the verifier’s webhook inbox (pass --webhook-public-url)',
    async setup(run, params) {
      const { account, values } = await baseAccount(run);
      const topic = str(params, 'topic', 'CARRIER_STATUS') as components['schemas']['EventTopic'];
      const type = str(params, 'type', 'OUTAGE');
      await subscribe(run, account, [topic]);
      const payload = (params.payload && typeof params.payload === 'object' ? params.payload : {}) as Record<string, unknown>;
      await run.steps.createMockEvent(account, { topic, type, payload });
      await capture(run, account.accountId, topic, type);
      return values;
    },
  },
};
