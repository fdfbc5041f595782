import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { addContractFormats } from '../../src/contract/formats.js';
import type { EventEnvelope } from '../../src/events/event-bus.js';
import { catalogueIds } from '../../src/carrier-catalogue/load-catalogue.js';
import type { Harness, TestAccount } from './harness.js';

/** An event as a test reads it: its payload is plain JSON, read by path (`e.payload.id`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads the payload's fields by name
export type CapturedEvent = Omit<EventEnvelope, 'payload'> & { payload: Record<string, any> };

/** Every event the mock publishes from now on, for assertions on topics, types and payloads. */
export function captureEvents(h: Harness): CapturedEvent[] {
  const seen: CapturedEvent[] = [];
  h.events.subscribe((event) => seen.push(event as CapturedEvent));
  return seen;
}

/** Catalogue ids used across the operation tests (stable: they do not move with the seed). */
export const ids = {
  cn23: catalogueIds.customsDeclarationType('CN23'),
  cn22: catalogueIds.customsDeclarationType('CN22'),
  lithium: catalogueIds.dangerousGoodsDeclarationType('LITHIUM_ION_PI966'),
  parcelPacking: catalogueIds.packingType('PARCEL'),
  dhl: catalogueIds.carrier('DHL_PARCEL'),
  dhlPaket: catalogueIds.service('DHL_PARCEL', 'DHL_PAKET'),
  ups: catalogueIds.carrier('UPS'),
  dhlExpress: catalogueIds.carrier('DHL_EXPRESS'),
};

export const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
export const munich = { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' };
export const vienna = { name: 'Anna Huber', street: 'Stephansplatz 1', city: 'Wien', postalCode: '1010', countryCode: 'AT' };

/** POST /v1/addresses; returns the new id. */
export async function createAddress(h: Harness, account: TestAccount, body: Record<string, unknown> = berlin): Promise<string> {
  const res = await h.http.post('/v1/addresses').set('Authorization', account.auth).send(body);
  if (res.status !== 201) throw new Error(`create address: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** POST to a create operation and return the id, failing loudly on anything but 201. */
export async function createVia(h: Harness, account: TestAccount, path: string, body: unknown): Promise<string> {
  const res = await h.http.post(path).set('Authorization', account.auth).send(body as object);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** A Carrier Definition (STAGING) and a Service Definition of DHL Paket, through HTTP. */
export async function createServiceDefinition(h: Harness, account: TestAccount, serviceId = ids.dhlPaket, carrierId = ids.dhl): Promise<string> {
  const carrierDefinitionId = await createVia(h, account, '/v1/carrier-definitions', { carrierId, name: 'DHL test' });
  return createVia(h, account, '/v1/service-definitions', { carrierDefinitionId, serviceId, name: 'DHL Paket' });
}

/** Violations of a value against any contract schema by name (also those no operation uses, e.g. UsageEvent). */
export function schemaErrors(h: Harness, name: string, value: unknown): unknown[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as { default: (ajv: Ajv2020) => void }).default(ajv);
  addContractFormats(ajv);
  ajv.addSchema({ ...(h.contract.document as object), $id: 'contract' });
  const validate = ajv.getSchema(`contract#/components/schemas/${name}`)!;
  return validate(value) ? [] : (validate.errors ?? []);
}

/** A fresh Account token after the virtual clock moved past the old one's 4 hours. */
export async function renewToken(h: Harness, account: TestAccount): Promise<TestAccount> {
  const res = await h.http.post(`/v1/accounts/${account.accountId}/tokens`).set('Authorization', h.basic).send({ grantType: 'client_credentials' });
  if (res.status !== 200) throw new Error(`account token: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...account, auth: `Bearer ${res.body.accessToken}` };
}
