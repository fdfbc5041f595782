import { afterAll, describe, expect, it } from 'vitest';
import type { ContractOperation } from '../../src/contract/load-contract.js';
import { book, bookingKit } from '../support/booking-fixtures.js';
import { createHarness, newAccount, twoAccounts, type Harness, type TestAccount } from '../support/harness.js';
import { createVia } from '../support/shipping-fixtures.js';

/**
 * Per-account isolation, driven by the contract: for every operation that only an Account token
 * may call and that names a resource in its path, a resource is created in account A from the
 * contract's own request examples and probed with account B's token — 404 in get, replace,
 * delete and sub-resource operations, absent from B's lists. A new resource family is covered
 * as soon as its operations are in the contract and its create works; no test code to add.
 *
 * Creating from a bare example fails where the body references other resources (a booking
 * naming parcels). References named `<thing>Id`/`<thing>Ids` in a 400 rule-violation are
 * resolved by creating a `<things>` resource first; what still fails with 400 rule-violation is
 * reported as skipped with the reason. A 501 (no stateful handler: one deleted by mistake) fails.
 * Where references were resolved, the same body sent by account B must be refused (400
 * rule-violation naming the reference): another account's id inside a body is as unknown as a
 * made-up one.
 *
 * Resources that exist only downstream of a booking (the booking itself, its documents and
 * trackers, dispatches, manifests) cannot be made from one example; DOWNSTREAM builds them
 * through the API with the booking fixtures. PUDO points are shared carrier reference data
 * (contract/DECISIONS.md), so they are checked for being readable by every account instead.
 */

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
interface Outcome {
  status: 'covered' | 'skipped';
  reason?: string;
}

class Skip extends Error {}

const reader = createHarness();
const contract = reader.contract;
const isAccountOnly = (op: ContractOperation) => op.security.length === 1 && op.security[0] === 'AccountToken';
/** Reference data every account reads alike: isolation does not apply (checked separately below). */
const SHARED_REFERENCE_DATA = ['/v1/pudo-points/{pudo-point-id}'];
const probed = contract.operations.filter((op) => isAccountOnly(op) && op.path.includes('{') && !SHARED_REFERENCE_DATA.includes(op.path));
const outcomes = new Map<string, Outcome>();

/** The request example of an operation, from `example` or the first of `examples`. */
function exampleBody(op: ContractOperation): unknown {
  const content = contract.document.paths[op.path][op.method].requestBody?.content?.['application/json'];
  if (!content) return undefined;
  if (content.example !== undefined) return structuredClone(content.example);
  const first = Object.values((content.examples ?? {}) as Record<string, { value?: unknown }>)[0];
  return first?.value === undefined ? undefined : structuredClone(first.value);
}

/** Required query parameters filled from their examples (or defaults, or first enum value). */
function exampleQuery(op: ContractOperation): Record<string, string> {
  const query: Record<string, string> = {};
  for (const p of op.parameters) {
    if (p.in !== 'query' || !p.required) continue;
    const raw = contract.document.paths[op.path][op.method].parameters?.find((x: { name?: string }) => x.name === p.name);
    const value = raw?.example ?? p.schema.example ?? p.schema.default ?? (p.schema.enum as unknown[] | undefined)?.[0];
    if (value === undefined) throw new Skip(`required query parameter ${p.name} has no example`);
    query[p.name] = String(value);
  }
  return query;
}

const camel = (kebab: string) => kebab.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
const plural = (kebab: string) => (/(s|x|ch|sh)$/.test(kebab) ? `${kebab}es` : `${kebab}s`);
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The path up to and including its last `{param}` segment: the resource the operation acts on. */
function resourcePathOf(path: string): string {
  const segments = path.split('/');
  let last = segments.length - 1;
  while (!segments[last].startsWith('{')) last--;
  return segments.slice(0, last + 1).join('/');
}

/** POST that creates items of a collection: on the collection itself, or nested (`POST …/{x}/<segment>`). */
function creatorOf(collection: string): ContractOperation | undefined {
  const segment = collection.slice(collection.lastIndexOf('/') + 1);
  const posts = contract.operations.filter((op) => op.method === 'post' && op.security.includes('AccountToken') && op.responses.has(201));
  return posts.find((op) => op.path === collection) ?? posts.find((op) => op.path.endsWith(`/${segment}`));
}

const fill = (path: string, ids: Record<string, string>) => path.replace(/\{([^}]+)\}/g, (_m, name: string) => ids[name] ?? `{${name}}`);

interface Created {
  ids: Record<string, string>;
  /** The body that finally succeeded, with references substituted. */
  body: unknown;
  /** Body fields (`body/parcelIds/0`) that had to be pointed at resources created for them. */
  references: string[];
}

/**
 * Creates, in `account`, the resource a path template names and every resource its path needs,
 * returning the path parameters' values. Body references (`…Id`, `…Ids`) that the service
 * rejects are created on the fly and substituted.
 */
async function createFor(h: Harness, account: TestAccount, resourcePath: string, depth = 0): Promise<Record<string, string>> {
  const downstream = DOWNSTREAM[resourcePath];
  if (downstream) return downstream(h, account);
  if (depth > 4) throw new Skip(`creating ${resourcePath} needs resources nested too deeply`);
  const collection = resourcePath.slice(0, resourcePath.lastIndexOf('/'));
  const creator = creatorOf(collection);
  if (!creator) throw new Skip(`no operation creates ${resourcePath} directly (POST ${collection} or POST …/${collection.split('/').pop()})`);
  return (await createWith(h, account, creator, resourcePath.slice(resourcePath.lastIndexOf('{') + 1, -1), depth)).ids;
}

/** POSTs `creator` from its example; `param` names the path parameter the new id fills (none: any 201 will do). */
async function createWith(h: Harness, account: TestAccount, creator: ContractOperation, param?: string, depth = 0): Promise<Created> {
  const ids: Record<string, string> = {};
  if (creator.path.includes('{')) Object.assign(ids, await createFor(h, account, resourcePathOf(creator.path), depth + 1));
  let body = exampleBody(creator);
  const references: string[] = [];
  for (let attempt = 0; ; attempt++) {
    const res = await h.http.post(fill(creator.path, ids)).query(exampleQuery(creator)).set('Authorization', account.auth).send(body as object);
    if (res.status === 201) {
      if (param === undefined) return { ids, body, references };
      const id = res.body[camel(param)] ?? res.body.id;
      expect(id, `${creator.operationId} 201 body names the new id`).toEqual(expect.any(String));
      return { ids: { ...ids, [param]: id }, body, references };
    }
    expect(res.status, `${creator.operationId} answered 501: every operation has a stateful handler`).not.toBe(501);
    const isRule = res.status === 400 && res.body.type === 'https://shipmock.dev/problems/rule-violation';
    expect(isRule, `${creator.operationId} from its contract example: ${res.status} ${JSON.stringify(res.body)}`).toBe(true);
    const field: string | undefined = res.body.properties?.violations?.[0]?.field;
    // `…Id`, `…Ids/N`, or an element of a plural array (`types/0`): a reference to resolve.
    const reference = field && (/^body\/(?:.*\/)?([a-z][A-Za-z]*?)Ids?(?:\/\d+)?$/.exec(field) ?? /^body\/(?:.*\/)?([a-z][A-Za-z]*?)s\/\d+$/.exec(field));
    if (!reference || attempt >= 5) throw new Skip(`${creator.operationId} from its contract example: 400 rule-violation (${res.body.detail})`);
    const target = referencedCollection(reference[1], creator.path);
    if (!target) throw new Skip(`${creator.operationId}: ${field} references a resource the test cannot create (${res.body.detail})`);
    let value: string;
    if (target.kind === 'account') {
      value = (await createFor(h, account, `${target.collection}/{ref}`, depth + 1)).ref;
      references.push(field);
    } else {
      // Shared reference data (carrier catalogue): any listed item will do.
      const page = await h.http.get(target.collection).set('Authorization', account.auth);
      value = page.body?.items?.[0]?.id;
      if (!value) throw new Skip(`${creator.operationId}: ${field} references ${target.collection}, which lists nothing (${page.status})`);
    }
    body = setAt(body, field.slice('body/'.length).split('/'), value);
  }
}

/** A booking in `account` (domestic DHL Paket, one parcel) with what it needs. */
async function aBooking(h: Harness, account: TestAccount) {
  const kit = await bookingKit(h, account);
  const booking = await book(h, account, kit.body(await kit.parcels(1)));
  return { kit, booking };
}

async function aDispatch(h: Harness, account: TestAccount): Promise<string> {
  const { kit, booking } = await aBooking(h, account);
  return createVia(h, account, '/v1/shipment-dispatches', { carrierDefinitionId: kit.carrierDefinitionId, shipmentBookingIds: [booking.id], pickupDate: '2026-01-16' });
}

/** Resources that only exist downstream of a booking, built through the API (see the header). */
const DOWNSTREAM: Record<string, (h: Harness, account: TestAccount) => Promise<Record<string, string>>> = {
  '/v1/shipment-bookings/{shipment-booking-id}': async (h, account) => ({ 'shipment-booking-id': (await aBooking(h, account)).booking.id }),
  '/v1/documents/{document-id}': async (h, account) => ({ 'document-id': (await aBooking(h, account)).booking.documentIds[0] }),
  '/v1/trackers/{tracker-id}': async (h, account) => ({ 'tracker-id': (await aBooking(h, account)).booking.trackerIds[0] }),
  '/v1/shipment-dispatches/{shipment-dispatch-id}': async (h, account) => ({ 'shipment-dispatch-id': await aDispatch(h, account) }),
  '/v1/shipment-manifests/{shipment-manifest-id}': async (h, account) => {
    const dispatchId = await aDispatch(h, account);
    const res = await h.http.post(`/v1/shipment-dispatches/${dispatchId}/shipment-manifests`).set('Authorization', account.auth);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { 'shipment-manifest-id': res.body.id };
  },
};

/**
 * Bodies that reference account resources only a booking brings into being: built in account
 * A through the API, with the fields that name A's resources.
 */
const DOWNSTREAM_BODIES: Record<string, (h: Harness, account: TestAccount) => Promise<Omit<Created, 'ids'>>> = {
  createShipmentBooking: async (h, account) => {
    const kit = await bookingKit(h, account);
    return {
      body: kit.body(await kit.parcels(1)),
      references: ['body/serviceDefinitionId', 'body/shipmentChannelId', 'body/parties/0/id', 'body/parties/1/id', 'body/parcelIds/0'],
    };
  },
  createShipmentDispatch: async (h, account) => {
    const { kit, booking } = await aBooking(h, account);
    return {
      body: { carrierDefinitionId: kit.carrierDefinitionId, shipmentBookingIds: [booking.id], pickupDate: '2026-01-16' },
      references: ['body/carrierDefinitionId', 'body/shipmentBookingIds/0'],
    };
  },
  createTracker: async (h, account) => ({
    body: { trackingNumber: (await aBooking(h, account)).booking.trackingNumbers[0] },
    references: ['body/trackingNumber'],
  }),
};

/**
 * The collection a body reference points into: an account collection the test can create in
 * (`carrierDefinitionId` → /v1/carrier-definitions, `senderAddressId` → /v1/addresses: the
 * longest camel-case suffix naming one), else a catalogue list readable with an Account token
 * (`packingTypeId` → /v1/packing-types; `typeId` in a dangerous-goods declaration →
 * /v1/dangerous-goods-declaration-types).
 */
function referencedCollection(name: string, creatorPath: string): { kind: 'account' | 'catalogue'; collection: string } | undefined {
  const words = kebab(name).split('-');
  const owner = creatorPath.split('/').filter((s) => s && !s.startsWith('{')).pop()!.replace(/s$/, '');
  const candidates = [...words.map((_w, i) => words.slice(i).join('-')), `${owner}-${words.join('-')}`].map((c) => `/v1/${plural(c)}`);
  const creatable = candidates.find((c) => creatorOf(c));
  if (creatable) return { kind: 'account', collection: creatable };
  const listable = candidates.find((c) => contract.operations.some((op) => op.method === 'get' && op.path === c && op.security.includes('AccountToken')));
  return listable ? { kind: 'catalogue', collection: listable } : undefined;
}

function setAt(body: unknown, pointer: string[], value: string): unknown {
  const root = structuredClone(body) as Record<string, any>;
  let node: Record<string, any> = root;
  for (const key of pointer.slice(0, -1)) node = node[key];
  node[pointer[pointer.length - 1]] = value;
  return root;
}

function call(h: Harness, op: ContractOperation, path: string, auth: string) {
  const req = h.http[op.method as Method](path).query(exampleQuery(op)).set('Authorization', auth);
  const body = exampleBody(op);
  return body === undefined ? req : req.send(body as object);
}

/** A fresh mock per probe, answering 501 for an operation without a stateful handler (which fails the probe). */
const isolated = () => twoAccounts(createHarness({ unhandled: 'error' }));

describe('per-account isolation, driven by the contract', () => {
  it.for(probed.map((op) => [op.operationId, op] as const))('%s: account B gets 404 for account A’s resource', async ([, op], ctx) => {
    try {
      const { h, a, b } = await isolated();
      const ids = await createFor(h, a, resourcePathOf(op.path));
      const path = fill(op.path, ids);
      const foreign = await call(h, op, path, b.auth);
      expect(foreign.status, `${op.operationId} answered 501: every operation has a stateful handler`).not.toBe(501);
      expect(foreign.status, `${op.method.toUpperCase()} ${path} with account B: ${JSON.stringify(foreign.body)}`).toBe(404);
      // The resource is intact and visible to its own account, so the 404 above means isolation.
      const owner = await h.http.get(fill(resourcePathOf(op.path), ids)).set('Authorization', a.auth);
      expect(owner.status).toBe(200);
      outcomes.set(op.operationId, { status: 'covered' });
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      outcomes.set(op.operationId, { status: 'skipped', reason: error.message });
      ctx.skip(error.message);
    }
  });

  const lists = contract.operations.filter(
    (op) => isAccountOnly(op) && op.method === 'get' && !op.path.includes('{') && probed.some((p) => resourcePathOf(p.path).startsWith(`${op.path}/{`)),
  );
  it.for(lists.map((op) => [op.operationId, op] as const))('%s: account B’s list does not contain account A’s resource', async ([, op], ctx) => {
    try {
      const { h, a, b } = await isolated();
      const param = probed.map((p) => resourcePathOf(p.path)).find((p) => p.startsWith(`${op.path}/{`))!;
      const ids = await createFor(h, a, param);
      const id = ids[param.slice(param.lastIndexOf('{') + 1, -1)];
      const own = await call(h, op, op.path, a.auth);
      expect(own.status, `${op.operationId} answered 501: every operation has a stateful handler`).not.toBe(501);
      expect(JSON.stringify(own.body)).toContain(id);
      const foreign = await call(h, op, op.path, b.auth);
      expect(foreign.status).toBe(200);
      expect(JSON.stringify(foreign.body)).not.toContain(id);
      outcomes.set(op.operationId, { status: 'covered' });
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      outcomes.set(op.operationId, { status: 'skipped', reason: error.message });
      ctx.skip(error.message);
    }
  });

  const creators = contract.operations.filter((op) => isAccountOnly(op) && op.method === 'post' && op.responses.has(201));
  it.for(creators.map((op) => [op.operationId, op] as const))('%s: account B cannot reference account A’s resources', async ([, op], ctx) => {
    try {
      const { h, a, b } = await isolated();
      const downstream = DOWNSTREAM_BODIES[op.operationId];
      const made = downstream ? await downstream(h, a) : await createWith(h, a, op);
      const ids = op.path.includes('{') ? await createFor(h, b, resourcePathOf(op.path)) : {};
      const foreign = await h.http.post(fill(op.path, ids)).query(exampleQuery(op)).set('Authorization', b.auth).send(made.body as object);
      if (made.references.length === 0) {
        // The body names nothing of account A's (only catalogue data, or nothing at all): the
        // same body works for account B too — shared reference data is shared.
        expect(foreign.status, JSON.stringify(foreign.body)).toBe(201);
        outcomes.set(`${op.operationId}:references`, { status: 'covered' });
        return;
      }
      expect(foreign.status, JSON.stringify(foreign.body)).toBe(400);
      expect(foreign.body.type).toBe('https://shipmock.dev/problems/rule-violation');
      const named = foreign.body.properties.violations.map((v: { field: string }) => v.field);
      expect(named.some((field: string) => made.references.includes(field))).toBe(true);
      outcomes.set(`${op.operationId}:references`, { status: 'covered' });
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      outcomes.set(`${op.operationId}:references`, { status: 'skipped', reason: error.message });
      ctx.skip(error.message);
    }
  });

  it('serves PUDO points as shared reference data: account B reads a point account A’s query returned', async () => {
    const { h, a, b } = await isolated();
    const query = await h.http.post('/v1/pudo-points/queries').set('Authorization', a.auth).send({ postalCode: '10115', countryCode: 'DE', limit: 1 });
    expect(query.status).toBe(200);
    const id = query.body.items[0].id;
    const read = await h.http.get(`/v1/pudo-points/${id}`).set('Authorization', b.auth);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(id);
  });

  it('really probes: the exemplar family is covered, not skipped', () => {
    for (const id of ['getAddress', 'replaceAddress', 'deleteAddress', 'listAddresses']) expect(outcomes.get(id)).toEqual({ status: 'covered' });
  });

  afterAll(() => {
    const skipped = [...outcomes].filter(([, o]) => o.status === 'skipped');
    if (skipped.length && process.env.SHIPMOCK_ISOLATION_REPORT) {
      process.stdout.write(`isolation: ${outcomes.size - skipped.length} covered, ${skipped.length} skipped\n${skipped.map(([id, o]) => `  ${id}: ${o.reason}`).join('\n')}\n`);
    }
  });
});
