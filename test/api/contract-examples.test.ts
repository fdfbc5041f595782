import { describe, expect, it } from 'vitest';
import type { ContractOperation } from '../../src/contract/load-contract.js';
import { createHarness, newAccount, type Harness, type TestAccount } from '../support/harness.js';
import { loadCatalogue } from '../../src/carrier-catalogue/load-catalogue.js';

/**
 * Every request example of the contract, replayed against a fresh mock: what the contract shows
 * a client must work as shown. Examples that refer to account-scoped resources (parcels,
 * addresses, definitions, bookings…) get those created first from their own create examples,
 * and only those ids are substituted; catalogue ids (carriers, services, packing and declaration
 * types) are sent as written, so they must be real catalogue ids. Each example must get the
 * lowest 2xx status its operation declares.
 */

interface RequestExample {
  operation: ContractOperation;
  name: string;
  body: unknown;
}

const reader = createHarness();
const { contract } = reader;
const nodeOf = (op: ContractOperation) => contract.document.paths[op.path][op.method];

function requestExamples(): RequestExample[] {
  const out: RequestExample[] = [];
  for (const operation of contract.operations) {
    const content = nodeOf(operation).requestBody?.content?.['application/json'];
    if (!content) continue;
    if (content.example !== undefined) out.push({ operation, name: 'example', body: content.example });
    for (const [name, example] of Object.entries((content.examples ?? {}) as Record<string, { value?: unknown }>)) out.push({ operation, name, body: example.value });
  }
  return out;
}

/** Body fields that name an account's own resource, and the collection that resource lives in. */
const ACCOUNT_REFERENCES: Record<string, string> = {
  carrierDefinitionId: '/v1/carrier-definitions',
  serviceDefinitionId: '/v1/service-definitions',
  shipmentChannelId: '/v1/shipment-channels',
  parcelId: '/v1/parcels',
  parcelIds: '/v1/parcels',
  customsDeclarationId: '/v1/customs-declarations',
  dangerousGoodsDeclarationIds: '/v1/dangerous-goods-declarations',
  shipmentBookingIds: '/v1/shipment-bookings',
  pickupAddressId: '/v1/addresses',
  senderAddressId: '/v1/addresses',
  receiverAddressId: '/v1/addresses',
  addressId: '/v1/addresses',
  zoneIds: '/v1/zones',
  shippingQuoteId: '/v1/shipping-quotes',
};

/** What one booking uses up: a second booking needs its own. */
const USED_UP = new Set(['/v1/parcels', '/v1/customs-declarations', '/v1/dangerous-goods-declarations', '/v1/shipping-quotes', '/v1/shipment-bookings']);

const successOf = (op: ContractOperation) => Math.min(...[...op.responses.keys()].filter((s) => s >= 200 && s < 300));

/** Replays examples on one mock with one account, creating what they refer to once per collection. */
function createReplayer(h: Harness, account: TestAccount) {
  const created = new Map<string, Promise<string>>();
  const exampleOf = (op: ContractOperation) => requestExamples().find((e) => e.operation === op)?.body;
  const creatorOf = (collection: string) => contract.operations.find((op) => op.method === 'post' && op.path === collection && successOf(op) === 201);

  async function authFor(op: ContractOperation): Promise<string> {
    if (op.security.includes('AccountToken')) return account.auth;
    if (op.security.includes('CompanyToken')) return account.companyAuth;
    if (op.security.includes('ClientCredentials') && op.path.startsWith('/v1/affiliates')) {
      const affiliate = h.companies.list().affiliates[0];
      return `Basic ${Buffer.from(`${affiliate.clientId}:${affiliate.clientSecret}`).toString('base64')}`;
    }
    if (op.security.includes('ClientCredentials')) return h.basic;
    if (op.security.includes('AffiliateToken')) {
      const res = await h.http.post('/v1/affiliates/tokens').set('Authorization', await authFor({ ...op, path: '/v1/affiliates/tokens', security: ['ClientCredentials'] })).send({ grantType: 'client_credentials' });
      return `Bearer ${res.body.accessToken}`;
    }
    return account.auth;
  }

  /** A shipping quote id: one quote of a batch generated from the contract's own example, over a delivery option made from its example. */
  async function quoteId(generation: number): Promise<string> {
    await idIn('/v1/delivery-options', generation);
    const generate = contract.byId.get('generateShippingQuotes')!;
    const res = await send(generate, await substitute(exampleOf(generate), generation));
    expect(res.status, `generateShippingQuotes for a quote id: ${JSON.stringify(res.body)}`).toBe(201);
    const serviceDefinitionId = await idIn('/v1/service-definitions', generation);
    const quote = (res.body.quotes ?? []).find((q: { serviceDefinitionId: string }) => q.serviceDefinitionId === serviceDefinitionId);
    expect(quote, `generateShippingQuotes quotes the service definition: ${JSON.stringify(res.body)}`).toBeDefined();
    return quote.id;
  }

  /**
   * The id of a resource of `collection` made from its create example, once per generation: an
   * example naming two bookings gets two, each with parcels, declarations and a quote of its own
   * (those are used up by one booking); configuration (definitions, channels, addresses) is shared.
   */
  function idIn(collection: string, wanted = 0): Promise<string> {
    const generation = USED_UP.has(collection) ? wanted : 0;
    const key = `${collection}#${generation}`;
    let id = created.get(key);
    if (!id) {
      id = (async () => {
        if (collection === '/v1/shipping-quotes') return quoteId(generation);
        const creator = creatorOf(collection);
        expect(creator, `an operation creates ${collection}`).toBeDefined();
        const res = await send(creator!, await substitute(exampleOf(creator!), generation));
        expect(res.status, `${creator!.operationId} (a dependency) from its example: ${JSON.stringify(res.body)}`).toBe(201);
        return res.body.id as string;
      })();
      created.set(key, id);
    }
    return id;
  }

  /** A tracking number of a booking made from the booking example (trackers follow the account's own bookings). */
  async function trackingNumber(): Promise<string> {
    const booking = await h.http.get(`/v1/shipment-bookings/${await idIn('/v1/shipment-bookings')}`).set('Authorization', account.auth);
    return booking.body.trackingNumbers[0];
  }

  /** The collection an example's field refers to, if it names one of the account's own resources. */
  function referenceOf(key: string | undefined, parent: string | undefined): string | undefined {
    if (key === undefined) return undefined;
    // A booking's parties name the account's addresses by `id`.
    if (key === 'id' && parent === 'parties') return '/v1/addresses';
    return ACCOUNT_REFERENCES[key];
  }

  /** The example with every account-scoped reference replaced by one of this account's ids. */
  async function substitute(value: unknown, generation = 0, key?: string, parent?: string): Promise<unknown> {
    const collection = referenceOf(key, parent);
    if (collection && typeof value === 'string') return idIn(collection, generation);
    if (Array.isArray(value)) {
      // A list of references names distinct resources: one generation each.
      const out: unknown[] = [];
      for (const [i, v] of value.entries()) out.push(await substitute(v, collection && typeof v === 'string' ? generation + i : generation, key, parent));
      return out;
    }
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = await substitute(v, generation, k, key);
      return out;
    }
    return value;
  }

  /** The operation's path with its parameters filled: this account, the default company, or a resource made for it. */
  async function pathOf(op: ContractOperation): Promise<string> {
    let path = op.path;
    for (const [placeholder, name] of op.path.matchAll(/\{([^}]+)\}/g)) {
      const before = op.path.slice(0, op.path.indexOf(placeholder) - 1);
      const value =
        name === 'account-id'
          ? account.accountId
          : name === 'company-id'
            ? h.companyId
            : name === 'affiliate-id'
              ? h.companies.list().affiliates[0].affiliateId
              : await idIn(before.replace(/\/v0\//, '/v1/'));
      path = path.replace(placeholder, value);
    }
    return path;
  }

  async function send(op: ContractOperation, body: unknown) {
    const path = await pathOf(op);
    return h.http[op.method](path).set('Authorization', await authFor(op)).send(body as object);
  }

  return { send, substitute, trackingNumber };
}

describe('the contract’s request examples, replayed', () => {
  const examples = requestExamples();

  it('finds the request examples (every operation with a JSON body has at least one)', () => {
    const withBody = contract.operations.filter((op) => nodeOf(op).requestBody?.content?.['application/json']);
    expect(withBody.filter((op) => !examples.some((e) => e.operation === op)).map((op) => op.operationId)).toEqual([]);
    expect(examples.length).toBeGreaterThanOrEqual(withBody.length);
  });

  it('names only real catalogue ids (carriers, services, packing and declaration types) in request examples', () => {
    const catalogue = loadCatalogue();
    const lookups: Record<string, (id: string) => unknown> = {
      carrierId: catalogue.carrier,
      serviceId: catalogue.service,
      packingTypeId: catalogue.packingType,
      defaultPackingTypeId: catalogue.packingType,
      types: catalogue.customsDeclarationType,
    };
    const unknown: string[] = [];
    const walk = (value: unknown, where: string, key?: string, parent?: string) => {
      if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${where}/${i}`, key, parent));
      if (value && typeof value === 'object') return Object.entries(value).forEach(([k, v]) => walk(v, `${where}/${k}`, k, key));
      // A dangerous goods declaration's `typeId` is a catalogue type too.
      const lookup = key === 'typeId' ? catalogue.dangerousGoodsDeclarationType : key ? lookups[key] : undefined;
      if (lookup && typeof value === 'string' && !lookup(value)) unknown.push(`${where} ${value}`);
    };
    for (const e of examples) walk(e.body, `${e.operation.operationId} (${e.name})`);
    expect(unknown).toEqual([]);
  });

  it.for(examples.map((e) => [`${e.operation.operationId} (${e.name})`, e] as const))('%s gets its documented success status', async ([, example]) => {
    const h = createHarness({ unhandled: 'error' });
    const account = await newAccount(h);
    const replay = createReplayer(h, account);
    const body = (await replay.substitute(example.body)) as Record<string, unknown>;
    // A tracker follows a tracking number of one of the account's bookings.
    if (example.operation.operationId === 'createTracker') body.trackingNumber = await replay.trackingNumber();
    const res = await replay.send(example.operation, body);
    expect(res.status, `${example.operation.operationId} ${example.name}: ${JSON.stringify(res.body)}`).toBe(successOf(example.operation));
  });
});
