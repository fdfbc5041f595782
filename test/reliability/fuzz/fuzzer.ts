import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { createTokenService } from '../../../src/auth/tokens.js';
import { catalogueIds } from '../../../src/carrier-catalogue/load-catalogue.js';
import type { Contract, ContractOperation, SecuritySchemeName } from '../../../src/contract/load-contract.js';
import { createRouteMatcher } from '../../../src/contract/route-matcher.js';
import type { ContractValidators } from '../../../src/contract/validators.js';
import { localResolver, schemaArbitrary, type SchemaContext } from './schema-arbitrary.js';
import { createWire, toCurl, type Wire, type WireRequest, type WireResponse } from './wire.js';

/**
 * The contract-driven fuzzer: for every operation of contract/openapi.yaml it generates valid
 * requests (fast-check arbitraries from the operation's parameter and body schemas, ids drawn
 * from resources it created) and mutated ones (wrong types, missing required, extra properties,
 * non-finite numbers, overlong strings, deep nesting, bad JSON, wrong content type, unknown ids,
 * odd path characters), sends each with one of the token levels, and checks every answer:
 *
 *  - no 5xx, no dropped connection, no timeout;
 *  - the answer validates against the contract (status and media type declared for the operation
 *    the mock routes to, body valid), checked here with the project's validators, independently
 *    of the mock's own response check; CORS and rate-limit headers present;
 *  - a request the contract says is invalid (or unauthenticated) is refused with a 4xx;
 *  - a refused request changes no state (sampled: state fingerprints before and after);
 *  - the mock stays up (health after each batch).
 *
 * Requests run one at a time, each drawn from a seed derived from (seed, index), so a run with
 * the same seed against a fresh mock with the same options sends the same requests.
 */

/** Token levels: none, garbage, forged (foreign-signed), the four real levels (two accounts), and client credentials (Basic). */
export type TokenLevel = 'none' | 'garbage' | 'forged' | 'company' | 'account' | 'accountB' | 'affiliate' | 'admin' | 'basic' | 'basicAffiliate' | 'basicWrong';
export const TOKEN_LEVELS: TokenLevel[] = ['none', 'garbage', 'forged', 'company', 'account', 'accountB', 'affiliate', 'admin', 'basic', 'basicAffiliate', 'basicWrong'];

export type MutationKind =
  | 'body-wrong-type' | 'body-missing-required' | 'body-extra-property' | 'body-overlong-string' | 'body-deep-nesting'
  | 'body-bad-json' | 'body-too-large' | 'wrong-content-type' | 'query-odd-number' | 'query-unknown' | 'unknown-id'
  | 'odd-path-param' | 'odd-authorization';

export interface FuzzTarget {
  baseUrl: string;
  companyId: string;
  clientId: string;
  clientSecret: string;
  affiliate: { affiliateId: string; clientId: string; clientSecret: string };
  /** Hash per part of the mock's state (store, random stream, scenarios, …). */
  fingerprint(): Promise<Record<string, string>>;
  /** Whether the server process is still running (in-process: always). */
  alive(): boolean;
  /** URL webhooks of generated Event Channels point at (a local receiver). */
  webhookUrl: string;
}

export interface FuzzOptions {
  contract: Contract;
  validators: ContractValidators;
  target: FuzzTarget;
  seed: number;
  requests: number;
  /** Stop generating after this long, whatever the count (ms). */
  timeLimitMs?: number;
  /** Share of requests that are mutated (0..1). Default 0.4. */
  mutationRate?: number;
  /** Share of requests whose state effect is checked when refused (0..1). Default 0.1. */
  stateCheckRate?: number;
  /** Requests between health checks and token refreshes. Default 250. */
  batchSize?: number;
  onProgress?: (report: FuzzReport) => void;
}

export type FindingKind = '5xx' | 'contract-violation' | 'accepted-invalid' | 'state-changed' | 'transport' | 'down';

export interface Finding {
  kind: FindingKind;
  /** Same kind, operation, status and cause: one line in the report. */
  key: string;
  count: number;
  /** Every operation the same finding was seen on. */
  operations: string[];
  index: number;
  seed: number;
  operationId: string;
  level: TokenLevel;
  mutation?: MutationKind;
  status?: number;
  detail: string;
  request: WireRequest;
  response?: { status: number; body: string };
}

export interface FuzzReport {
  seed: number;
  requests: number;
  byStatusClass: Record<string, number>;
  byOperation: Record<string, Record<string, number>>;
  mutated: number;
  stateChecks: number;
  healthChecks: number;
  findings: Finding[];
  durationMs: number;
  /** Operations that answered no 2xx at all in this run. */
  never2xx: string[];
  /** Per operation, the last refusal seen (status, problem type, detail): why an operation stays without a 2xx. */
  lastRefusal: Record<string, string>;
}

const HOUR = 3_600_000;

/** mulberry32: small seeded generator for the fuzzer's own choices (which operation, token, mutation). */
function rngOf(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function deriveSeed(seed: number, index: number): number {
  return createHash('sha256').update(`${seed}:${index}`).digest().readUInt32LE(0) | 0;
}

const normKey = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const singular = (s: string) => s.replace(/ies$/, 'y').replace(/(ses|xes|ches|shes)$/, (m) => m.slice(0, -2)).replace(/s$/, '');

/** Ids seen in answers, keyed by the normalised name of what they identify ('addressid'). */
class IdPool {
  private readonly ids = new Map<string, string[]>();
  add(key: string, id: unknown) {
    if (typeof id !== 'string' || !id || id.length > 200) return;
    const list = this.ids.get(key) ?? [];
    if (list.includes(id)) return;
    list.push(id);
    if (list.length > 40) list.shift();
    this.ids.set(key, list);
  }
  remove(id: string) {
    for (const list of this.ids.values()) {
      const at = list.indexOf(id);
      if (at >= 0) list.splice(at, 1);
    }
  }
  pick(key: string, n: number): string | undefined {
    const list = this.ids.get(key);
    return list?.length ? list[n % list.length] : undefined;
  }
  any(n: number): string | undefined {
    const all = [...this.ids.values()].flat();
    return all.length ? all[n % all.length] : undefined;
  }
}

interface Tokens {
  company?: string;
  account?: string;
  accountB?: string;
  affiliate?: string;
  admin?: string;
  forged: string;
  basic: string;
  basicAffiliate: string;
  basicWrong: string;
}

interface Generated {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body?: unknown;
}

interface Built {
  wire: WireRequest;
  level: TokenLevel;
  mutation?: MutationKind;
  /** Why the request must be refused with a 4xx, when it must. */
  mustRefuse?: string;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const { contract, validators, target, seed } = options;
  const started = Date.now();
  const mutationRate = options.mutationRate ?? 0.4;
  const stateCheckRate = options.stateCheckRate ?? 0.1;
  const batchSize = options.batchSize ?? 250;
  const wire = createWire(target.baseUrl);
  const routes = createRouteMatcher(contract.operations);
  const resolve = localResolver(contract.document);
  const pool = new IdPool();
  const report: FuzzReport = { seed, requests: 0, byStatusClass: {}, byOperation: {}, mutated: 0, stateChecks: 0, healthChecks: 0, findings: [], durationMs: 0, never2xx: [], lastRefusal: {} };
  const findings = new Map<string, Finding>();

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const forger = createTokenService({ secret: 'forged-by-the-fuzzer', now: () => Date.parse('2026-01-01T00:00:00Z') });
  const tokens: Tokens = {
    forged: `Bearer ${forger.sign({ lvl: 'COMPANY', cid: target.companyId, sub: target.clientId }, 10 * 365 * 24 * HOUR).token}`,
    basic: basic(target.clientId, target.clientSecret),
    basicAffiliate: basic(target.affiliate.clientId, target.affiliate.clientSecret),
    basicWrong: basic(target.clientId, 'not-the-secret'),
  };

  // ---- ids: where an answer's ids go -------------------------------------------------------
  const collectionKey = new Map<string, string>();
  for (const op of contract.operations) {
    const m = /^(.*)\/\{([^}]+)\}$/.exec(op.path);
    if (m) collectionKey.set(m[1], normKey(m[2]));
  }
  const keyOfCollection = (path: string) => collectionKey.get(path) ?? `${normKey(singular(path.split('/').pop() ?? ''))}id`;

  function harvest(op: ContractOperation, concretePath: string, body: unknown) {
    if (!body || typeof body !== 'object') return;
    const templ = op.path;
    const isItem = /\}$/.test(templ);
    const ownKey = isItem ? normKey(/\{([^}]+)\}$/.exec(templ)![1]) : keyOfCollection(templ.replace(/^\/v[01]/, (v) => v));
    const visit = (node: unknown, key: string | undefined, depth: number) => {
      if (depth > 6 || !node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((n) => visit(n, key, depth + 1));
      for (const [k, v] of Object.entries(node)) {
        if (k === 'id' && key) pool.add(key, v);
        else if (/Ids$/.test(k) && Array.isArray(v)) v.forEach((x) => pool.add(normKey(k.slice(0, -1)), x));
        else if (/Id$/.test(k)) pool.add(normKey(k), v);
        else if (k === 'trackingNumbers' && Array.isArray(v)) v.forEach((x) => pool.add('trackingnumber', x));
        else if (k === 'trackingNumber') pool.add('trackingnumber', v);
        else if (k === 'nextCursor') pool.add('cursor', v);
        else if (k === 'items') visit(v, key, depth + 1);
        else if (typeof v === 'object') visit(v, undefined, depth + 1);
      }
    };
    visit(body, ownKey, 0);
    void concretePath;
  }

  // ---- arbitraries per operation -----------------------------------------------------------
  const override = (schema: Record<string, any>, context: SchemaContext): fc.Arbitrary<unknown> | undefined => {
    const key = context.key;
    if (schema.type === 'string' && (schema.format === 'webhook-url' || schema.format === 'http-url' || (schema.format === 'uri' && key === 'url'))) {
      return fc.nat(999).map((n) => `${target.webhookUrl}/${n}`);
    }
    if (!key) return undefined;
    const isIdLike = schema.type === 'string' && (schema.format === 'uuid' || /Id$/.test(key) || key === 'id');
    const generated = () => schemaArbitrary(schema, { resolve });
    if (isIdLike && (/Ids?$/.test(key) || key === 'id')) {
      const poolKey = normKey(key.replace(/Ids$/, 'Id'));
      return fc.oneof(
        { weight: 4, arbitrary: fc.nat().map((n) => (key === 'id' ? pool.any(n) : pool.pick(poolKey, n)) ?? fc.sample(generated(), { seed: n, numRuns: 1 })[0]) },
        { weight: 1, arbitrary: generated() },
      );
    }
    if (key === 'cursor') {
      // A made-up cursor is refused (400): mostly a real one from an earlier page.
      return fc.oneof({ weight: 3, arbitrary: fc.nat().map((n) => pool.pick('cursor', n) ?? undefined) }, { weight: 1, arbitrary: generated() });
    }
    if (key === 'trackingNumber' && schema.type === 'string') {
      return fc.oneof({ weight: 3, arbitrary: fc.nat().map((n) => pool.pick('trackingnumber', n) ?? 'UNKNOWN1') }, { weight: 1, arbitrary: generated() });
    }
    return undefined;
  };

  const arbitraries = new Map<string, fc.Arbitrary<Generated>>();
  function arbitraryOf(op: ContractOperation): fc.Arbitrary<Generated> {
    let arb = arbitraries.get(op.operationId);
    if (arb) return arb;
    const where = (loc: 'path' | 'query' | 'header') => {
      const params = op.parameters.filter((p) => p.in === loc);
      const values: Record<string, fc.Arbitrary<unknown>> = {};
      for (const p of params) {
        const top = typeof p.schema.$ref === 'string' ? (resolve(p.schema.$ref as string) as Record<string, any>) : p.schema;
        const generated = override(top, { key: p.name, path: [] }) ?? schemaArbitrary(p.schema, { resolve, override });
        values[p.name] = loc === 'path'
          ? fc.oneof({ weight: 5, arbitrary: fc.nat().map((n) => pool.pick(normKey(p.name), n) ?? fc.sample(generated, { seed: n, numRuns: 1 })[0]) }, { weight: 1, arbitrary: generated })
          : generated;
      }
      return fc.record(values, { requiredKeys: params.filter((p) => p.required).map((p) => p.name) }) as fc.Arbitrary<Record<string, unknown>>;
    };
    const body = op.requestBody?.schemaPointer ? schemaArbitrary({ $ref: op.requestBody.schemaPointer }, { resolve, override }) : fc.constant(undefined);
    arb = fc.record({ path: where('path'), query: where('query'), header: where('header'), body }) as fc.Arbitrary<Generated>;
    arbitraries.set(op.operationId, arb);
    return arb;
  }

  // ---- tokens and seed data ------------------------------------------------------------------
  async function must(method: string, path: string, auth: string | undefined, body: unknown, expected: number): Promise<any> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (auth) headers.authorization = auth;
    const res = await wire.send({ method, path, headers, body: body === undefined ? Buffer.from('{}') : Buffer.from(JSON.stringify(body)) });
    if (res.status !== expected) throw new Error(`fuzz setup: ${method} ${path} answered ${res.status}, expected ${expected}: ${res.text.slice(0, 500)}`);
    const op = routes.match(method, path.split('?')[0]);
    if (op.kind === 'operation') harvest(op.operation, path, res.json);
    return res.json;
  }
  const grant = { grantType: 'client_credentials' };
  const accountBody = {
    company: { name: 'Fuzz GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
    contact: { name: 'Fuzz Tester', email: 'fuzz@example.com', phone: '+49301234567' },
  };
  let accountIds: { a?: string; b?: string } = {};

  async function accountToken(accountId: string | undefined): Promise<string | undefined> {
    if (!accountId) return undefined;
    const res = await wire.send({ method: 'POST', path: `/v1/accounts/${accountId}/tokens`, headers: { 'content-type': 'application/json', authorization: tokens.basic }, body: Buffer.from(JSON.stringify(grant)) });
    return res.status === 200 ? `Bearer ${(res.json as { accessToken: string }).accessToken}` : undefined;
  }

  async function seedAccount(): Promise<string> {
    const account = await must('POST', '/v1/accounts', tokens.company, accountBody, 201);
    pool.add('accountid', account.id);
    return account.id;
  }

  /** Everything a booking needs in account A, then a booking, a dispatch and its manifest. */
  async function seedResources(auth: string) {
    const carrierDefinition = await must('POST', '/v1/carrier-definitions', auth, { carrierId: catalogueIds.carrier('DHL_PARCEL'), name: 'Fuzz DHL' }, 201);
    const serviceDefinition = await must('POST', '/v1/service-definitions', auth, { carrierDefinitionId: carrierDefinition.id, serviceId: catalogueIds.service('DHL_PARCEL', 'DHL_PAKET'), name: 'Fuzz Paket' }, 201);
    const channel = await must('POST', '/v1/shipment-channels', auth, { name: 'Fuzz channel', documentRendering: { labelFormat: 'PDF', labelSize: 'A6' } }, 201);
    const sender = await must('POST', '/v1/addresses', auth, { name: 'Erika Mustermann', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' }, 201);
    const receiver = await must('POST', '/v1/addresses', auth, { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' }, 201);
    const parcels = [];
    for (let i = 0; i < 3; i++) parcels.push((await must('POST', '/v1/parcels', auth, { weight: 2.5, reference: `FUZZ-${i}` }, 201)).id);
    const booking = await must('POST', '/v1/shipment-bookings', auth, {
      serviceDefinitionId: serviceDefinition.id,
      shipmentChannelId: channel.id,
      parties: [{ role: 'SENDER', entityType: 'ADDRESS', id: sender.id }, { role: 'RECEIVER', entityType: 'ADDRESS', id: receiver.id }],
      parcelIds: [parcels[0]],
      reference: 'FUZZ-ORDER',
    }, 201);
    const full = await must('GET', `/v1/shipment-bookings/${booking.id}`, auth, undefined, 200);
    const dispatch = await must('POST', '/v1/shipment-dispatches', auth, { carrierDefinitionId: carrierDefinition.id, shipmentBookingIds: [booking.id], pickupDate: '2026-01-16' }, 201);
    await must('POST', `/v1/shipment-dispatches/${dispatch.id}/shipment-manifests`, auth, undefined, 201);
    await must('POST', '/v1/event-channels', auth, { name: 'Fuzz hooks', topics: ['SHIPMENT_BOOKING'], webhook: { url: `${target.webhookUrl}/seed` } }, 201).catch(() => undefined);
    await must('POST', '/v1/trackers', auth, { trackingNumber: full.trackingNumbers[0] }, 201).catch(() => undefined);
  }

  /** A token from a token endpoint; undefined when refused (e.g. 429 after the fuzzer's wrong secrets). */
  async function mint(path: string, auth: string | undefined, body: unknown): Promise<string | undefined> {
    const res = await wire.send({ method: 'POST', path, headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) }, body: Buffer.from(JSON.stringify(body)) });
    return res.status === 200 ? `Bearer ${(res.json as { accessToken: string }).accessToken}` : undefined;
  }

  async function refreshTokens(initial: boolean) {
    if (!initial) {
      // Virtual time moves on between batches: client-credential lockouts (429) run out; tokens
      // are renewed right after, so none expires mid-batch.
      await must('POST', '/__admin/clock/advance', undefined, { duration: 'PT5M' }, 200);
    }
    tokens.company = (await mint(`/v1/companies/${target.companyId}/tokens`, tokens.basic, grant)) ?? tokens.company;
    tokens.affiliate = (await mint('/v1/affiliates/tokens', tokens.basicAffiliate, grant)) ?? tokens.affiliate;
    tokens.admin = (await mint('/__admin/tokens', undefined, { level: 'ADMIN' })) ?? tokens.admin;
    if (!tokens.company || !tokens.affiliate || !tokens.admin) throw new Error('fuzz setup: the token endpoints refused the configured credentials');
    tokens.account = (await accountToken(accountIds.a)) ?? (initial ? undefined : tokens.account);
    if (!tokens.account) {
      // First run, or the fuzzer deleted account A: a new one with fresh resources.
      accountIds.a = await seedAccount();
      tokens.account = await accountToken(accountIds.a);
      if (!tokens.account) throw new Error('fuzz setup: no account token for a new account');
      await seedResources(tokens.account);
    }
    tokens.accountB = (await accountToken(accountIds.b)) ?? tokens.accountB;
    if (!tokens.accountB) {
      accountIds.b = await seedAccount();
      tokens.accountB = await accountToken(accountIds.b);
    }
    void initial;
  }

  pool.add('companyid', target.companyId);
  pool.add('affiliateid', target.affiliate.affiliateId);
  await refreshTokens(true);

  // ---- building one request ----------------------------------------------------------------
  const authOf = (level: TokenLevel): string | undefined => {
    switch (level) {
      case 'none':
        return undefined;
      case 'garbage':
        return 'Bearer garbage.not-a.token';
      default:
        return tokens[level];
    }
  };
  const levelFor = (op: ContractOperation, scheme: SecuritySchemeName | undefined, rnd: number): TokenLevel => {
    switch (scheme) {
      case 'AccountToken':
        return rnd < 0.85 ? 'account' : 'accountB';
      case 'CompanyToken':
        return 'company';
      case 'AffiliateToken':
        return 'affiliate';
      case 'AdminToken':
        return 'admin';
      case 'ClientCredentials':
        return op.path.startsWith('/v1/affiliates') ? 'basicAffiliate' : 'basic';
      default:
        return 'none';
    }
  };
  const ODD_PATH = ['%00', '..', '%2e%2e', '%2F', 'a%2Fb', '%', '%E0%A4%A', '%zz', 'x'.repeat(3000), '%F0%9F%92%A9', "'", ';', '%20', '~', '%C0%AF', '__proto__', 'constructor', 'null', '-1', '0', '1e309'];
  const ODD_NUMBERS = ['1e309', 'Infinity', '-Infinity', 'NaN', '-1', '1.5', '99999999999999999999999', '0x10', '', '1e3', ' 1', 'abc', '-0'];
  const BAD_JSON = ['{', '{"a":1,}', 'NaN', '\uFEFF{}', '{"a":1}{"b":2}', "{'a':1}", '[1,2', '"\\ud800"', '{"a":"\u0000"}', '\u0000', 'tru', '{"__proto__":{"polluted":true}}', '1e309'];
  const WRONG_TYPES: unknown[] = [1, -1, 1.5, 'string', true, null, [], {}, [1, 'a'], { nested: { x: 1 } }, 1e308];

  /** Walks to a random node of a JSON value: [parent, key] pairs of every object/array member. */
  function slots(value: unknown): [Record<string, unknown> | unknown[], string | number][] {
    const out: [Record<string, unknown> | unknown[], string | number][] = [];
    const visit = (node: unknown, depth: number) => {
      if (depth > 8 || !node || typeof node !== 'object') return;
      if (Array.isArray(node)) node.forEach((v, i) => (out.push([node, i]), visit(v, depth + 1)));
      else for (const [k, v] of Object.entries(node)) (out.push([node as Record<string, unknown>, k]), visit(v, depth + 1));
    };
    visit(value, 0);
    return out;
  }
  const objectsIn = (value: unknown): Record<string, unknown>[] => {
    const out: Record<string, unknown>[] = [];
    const visit = (node: unknown, depth: number) => {
      if (depth > 8 || !node || typeof node !== 'object') return;
      if (!Array.isArray(node)) out.push(node as Record<string, unknown>);
      for (const v of Object.values(node)) visit(v, depth + 1);
    };
    visit(value, 0);
    return out;
  };

  function build(op: ContractOperation, index: number, firstPass: boolean): Built {
    const rnd = rngOf(deriveSeed(seed, index));
    const values = structuredClone(fc.sample(arbitraryOf(op), { seed: deriveSeed(seed, index) ^ 0x5bd1e995, numRuns: 1 })[0]);
    const level: TokenLevel = firstPass || rnd() < 0.6 ? levelFor(op, preferredScheme(op), rnd()) : TOKEN_LEVELS[Math.floor(rnd() * TOKEN_LEVELS.length)];
    const hasBody = op.requestBody?.schemaPointer !== undefined;
    const kinds: MutationKind[] = ['odd-authorization', 'query-unknown'];
    if (hasBody) kinds.push('body-wrong-type', 'body-missing-required', 'body-extra-property', 'body-overlong-string', 'body-deep-nesting', 'body-bad-json', 'body-too-large', 'wrong-content-type');
    if (op.parameters.some((p) => p.in === 'query')) kinds.push('query-odd-number', 'query-odd-number');
    if (op.parameters.some((p) => p.in === 'path')) kinds.push('unknown-id', 'unknown-id', 'odd-path-param', 'odd-path-param');
    const mutation = !firstPass && rnd() < mutationRate ? kinds[Math.floor(rnd() * kinds.length)] : undefined;

    let mustRefuse: string | undefined;
    let rawBody: Buffer | undefined = values.body === undefined ? undefined : Buffer.from(JSON.stringify(values.body));
    let contentType = 'application/json';
    let authorization = authOf(level);
    const rawPath: Record<string, string> = {};
    for (const [k, v] of Object.entries(values.path)) rawPath[k] = encodeURIComponent(String(v));
    const query: [string, string][] = [];
    for (const [k, v] of Object.entries(values.query)) {
      if (Array.isArray(v)) v.forEach((x) => query.push([k, String(x)]));
      else if (v !== undefined) query.push([k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
    }

    const mutateBody = (fn: (body: unknown) => unknown) => {
      const body = fn(structuredClone(values.body));
      rawBody = Buffer.from(JSON.stringify(body) ?? '');
      const violations = validators.forOperation(op.operationId).body?.(body) ?? [];
      if (violations.length) mustRefuse = `body breaks the request schema (${violations[0].field} ${violations[0].message})`;
    };
    switch (mutation) {
      case 'body-wrong-type':
        mutateBody((body) => {
          const all = slots(body);
          const wrong = WRONG_TYPES[Math.floor(rnd() * WRONG_TYPES.length)];
          if (!all.length) return wrong;
          const [parent, key] = all[Math.floor(rnd() * all.length)];
          (parent as any)[key] = wrong;
          return body;
        });
        break;
      case 'body-missing-required':
        mutateBody((body) => {
          const objects = objectsIn(body).filter((o) => Object.keys(o).length);
          if (!objects.length) return undefined;
          const o = objects[Math.floor(rnd() * objects.length)];
          const keys = Object.keys(o);
          delete o[keys[Math.floor(rnd() * keys.length)]];
          return body;
        });
        break;
      case 'body-extra-property':
        mutateBody((body) => {
          const objects = objectsIn(body);
          const o = objects.length ? objects[Math.floor(rnd() * objects.length)] : undefined;
          if (!o) return { unexpectedFuzzField: 1 };
          o[['unexpectedFuzzField', 'constructor', 'toString', 'id', 'createdAt'][Math.floor(rnd() * 5)]] = 'extra';
          return body;
        });
        break;
      case 'body-overlong-string':
        mutateBody((body) => {
          const strings = slots(body).filter(([p, k]) => typeof (p as any)[k] === 'string');
          const long = 'x'.repeat([1_000, 10_000, 200_000][Math.floor(rnd() * 3)]);
          if (!strings.length) return long;
          const [parent, key] = strings[Math.floor(rnd() * strings.length)];
          (parent as any)[key] = long;
          return body;
        });
        break;
      case 'body-deep-nesting': {
        const depth = [100, 5_000, 100_000][Math.floor(rnd() * 3)];
        rawBody = Buffer.from(rnd() < 0.5 ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
        mustRefuse = `body nested ${depth} deep is not the request schema`;
        break;
      }
      case 'body-bad-json': {
        const text = BAD_JSON[Math.floor(rnd() * BAD_JSON.length)];
        rawBody = Buffer.from(text);
        let parsed: unknown;
        let parses = true;
        try {
          parsed = JSON.parse(text);
        } catch {
          parses = false;
        }
        const violations = parses ? validators.forOperation(op.operationId).body?.(parsed) ?? [] : [];
        if (!parses || violations.length) mustRefuse = `body ${JSON.stringify(text)} is not valid JSON of the request schema`;
        break;
      }
      case 'body-too-large':
        rawBody = Buffer.from(JSON.stringify({ padding: 'p'.repeat(2 * 1024 * 1024) }));
        mustRefuse = 'body over the size limit';
        break;
      case 'wrong-content-type':
        contentType = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/jsonx', ''][Math.floor(rnd() * 6)];
        if (values.body !== undefined) mustRefuse = `Content-Type ${JSON.stringify(contentType)} is not application/json`;
        break;
      case 'query-odd-number': {
        const params = op.parameters.filter((p) => p.in === 'query');
        const p = params[Math.floor(rnd() * params.length)];
        const value = ODD_NUMBERS[Math.floor(rnd() * ODD_NUMBERS.length)];
        const at = query.findIndex(([k]) => k === p.name);
        if (at >= 0) query.splice(at, 1);
        query.push([p.name, value]);
        const type = (p.schema as { type?: string }).type;
        const nonFinite = ['1e309', 'Infinity', '-Infinity', 'NaN', 'abc', '0x10'].includes(value);
        if ((type === 'integer' || type === 'number') && (nonFinite || (type === 'integer' && value === '1.5'))) {
          mustRefuse = `query ${p.name}=${value} is not a finite ${type}`;
        }
        break;
      }
      case 'query-unknown':
        query.push([['unexpected_param', 'limit', '__proto__', 'sort', 'cursor'][Math.floor(rnd() * 5)], ['1', 'x', '', '%zz'][Math.floor(rnd() * 4)]]);
        break;
      case 'unknown-id': {
        const params = Object.keys(rawPath);
        const name = params[Math.floor(rnd() * params.length)];
        rawPath[name] = fc.sample(fc.uuid(), { seed: deriveSeed(seed, index) + 1, numRuns: 1 })[0];
        mustRefuse = `path ${name} is an id nobody created`;
        break;
      }
      case 'odd-path-param': {
        const params = Object.keys(rawPath);
        rawPath[params[Math.floor(rnd() * params.length)]] = ODD_PATH[Math.floor(rnd() * ODD_PATH.length)];
        break;
      }
      case 'odd-authorization':
        authorization = ['Bearer', 'Bearer ', `Bearer ${'a'.repeat(8000)}`, 'Basic !!!', 'Basic ' + Buffer.from('no-colon').toString('base64'), 'Bearer a.b.c', 'Digest x', 'bearer ' + (tokens.account ?? '').slice(7), `Bearer ${(tokens.account ?? '').slice(7, -3)}abc`][Math.floor(rnd() * 9)];
        break;
    }
    if (op.security.length && !mutation && ['none', 'garbage', 'forged', 'basicWrong'].includes(level)) mustRefuse = `no valid credentials (${level})`;

    // The seed accounts stay usable: deleting or disabling them would leave the rest of the run at 401/403.
    if (op.method === 'delete' || (op.method === 'put' && op.path.startsWith('/v1/accounts/'))) for (const [k, v] of Object.entries(rawPath)) if (v === accountIds.a || v === accountIds.b) rawPath[k] = '00000000-0000-4000-8000-000000000000';
    let path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => rawPath[name] ?? 'missing');
    if (query.length) path += `?${query.map(([k, v]) => (v === '%zz' ? `${encodeURIComponent(k)}=%zz` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)).join('&')}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (authorization !== undefined) headers.authorization = authorization;
    // Header values must be visible ASCII on the wire (node refuses the rest before sending).
    for (const [k, v] of Object.entries(values.header)) headers[k] = /^[\x20-\x7e]*$/.test(String(v)) ? String(v) : encodeURIComponent(String(v));
    if (rawBody !== undefined && contentType) headers['content-type'] = contentType;
    return { wire: { method: op.method.toUpperCase(), path, headers, body: rawBody }, level, mutation, mustRefuse };
  }

  // ---- checking one answer -----------------------------------------------------------------
  function record(kind: FindingKind, index: number, op: ContractOperation, built: Built, detail: string, cause: string, res?: WireResponse) {
    // A cause seen on many operations (a problem field every route writes) is one finding.
    const key = `${kind} ${res ? Math.floor(res.status / 100) : '-'}xx ${cause}`;
    const known = findings.get(key);
    if (known) {
      known.count++;
      if (!known.operations.includes(op.operationId)) known.operations.push(op.operationId);
      return;
    }
    findings.set(key, {
      kind, key, count: 1, operations: [op.operationId], index, seed, operationId: op.operationId, level: built.level, mutation: built.mutation, status: res?.status, detail,
      request: { ...built.wire, body: built.wire.body && built.wire.body.length > 4096 ? Buffer.from(`${built.wire.body.subarray(0, 2048).toString()}…`) : built.wire.body },
      response: res ? { status: res.status, body: res.text.slice(0, 2000) } : undefined,
    });
  }

  function check(index: number, op: ContractOperation, built: Built, res: WireResponse) {
    const problemCause = () => {
      const body = res.json as { type?: string; detail?: string; properties?: { violations?: { field: string; message: string }[] } } | undefined;
      return `${body?.type ?? res.mediaType ?? ''} ${body?.properties?.violations?.[0]?.field ?? ''}`.trim();
    };
    if (res.status >= 500) record('5xx', index, op, built, `answered ${res.status}: ${res.text.slice(0, 300)}`, problemCause(), res);
    if (!res.headers['access-control-allow-origin']) record('contract-violation', index, op, built, 'no Access-Control-Allow-Origin header', 'no-cors', res);
    if (res.status !== 500) {
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
        const value = res.headers[name];
        if (typeof value !== 'string' || !/^\d+$/.test(value)) record('contract-violation', index, op, built, `${name} is ${JSON.stringify(value)}, not a non-negative integer`, name, res);
      }
    }
    const routed = routes.match(built.wire.method, built.wire.path.split('?')[0]);
    const bodyOk = res.text === '' || !res.mediaType?.endsWith('json') || res.json !== undefined;
    if (!bodyOk) record('contract-violation', index, op, built, `body is not JSON though the media type is ${res.mediaType}`, 'unparseable-json', res);
    if (routed.kind === 'operation') {
      const routedOp = routed.operation;
      const body = res.mediaType?.endsWith('json') ? res.json : undefined;
      const violations = validators.forOperation(routedOp.operationId).response(res.status, res.text === '' ? undefined : res.mediaType, res.text === '' ? undefined : body);
      if (violations === null) record('contract-violation', index, routedOp, built, `${routedOp.operationId} answered ${res.status} ${res.mediaType ?? '(no body)'}, which the contract does not declare`, `undeclared ${res.mediaType}`, res);
      else if (violations.length) record('contract-violation', index, routedOp, built, `body violates the contract: ${violations.slice(0, 3).map((v) => `${v.field} ${v.message}`).join('; ')}`, violations[0].field, res);
    } else {
      // No operation: only a 404/405 problem is right.
      const problemViolations = res.json && res.mediaType === 'application/problem+json' ? validators.validate('#/components/schemas/Problem', res.json) : [{ field: 'body', message: 'is not a problem' }];
      if (![404, 405].includes(res.status) || problemViolations.length) {
        record('contract-violation', index, op, built, `unrouted path answered ${res.status} ${res.mediaType}: ${problemViolations.map((v) => `${v.field} ${v.message}`).join('; ')}`, `unrouted ${res.status}`, res);
      }
    }
    if (built.mustRefuse && res.status >= 200 && res.status < 300) {
      record('accepted-invalid', index, op, built, `answered ${res.status} although ${built.mustRefuse}`, built.mutation ?? built.level, res);
    }
  }

  // ---- the run -----------------------------------------------------------------------------
  const operations = contract.operations;
  const deadline = options.timeLimitMs === undefined ? Infinity : started + options.timeLimitMs;
  const seen2xx = new Set<string>();
  for (let index = 0; index < options.requests && Date.now() < deadline; index++) {
    const firstPass = index < operations.length;
    const op = firstPass ? operations[index] : operations[Math.floor(rngOf(deriveSeed(seed, index) ^ 0x1234567)() * operations.length)];
    let built: Built;
    try {
      built = build(op, index, firstPass);
    } catch (error) {
      throw new Error(`fuzz: cannot build a request for ${op.operationId}: ${(error as Error).stack}`);
    }
    if (built.mutation) report.mutated++;
    const checkState = rngOf(deriveSeed(seed, index) ^ 0x777)() < stateCheckRate;
    const before = checkState ? await target.fingerprint() : undefined;
    let res: WireResponse;
    try {
      res = await wire.send(built.wire);
    } catch (error) {
      record('transport', index, op, built, `no answer: ${(error as Error).message}`, (error as Error).message.slice(0, 40));
      if (!target.alive()) {
        record('down', index, op, built, 'the server process exited', 'exited');
        break;
      }
      continue;
    }
    report.requests++;
    const cls = `${Math.floor(res.status / 100)}xx`;
    report.byStatusClass[cls] = (report.byStatusClass[cls] ?? 0) + 1;
    const perOp = (report.byOperation[op.operationId] ??= {});
    perOp[cls] = (perOp[cls] ?? 0) + 1;
    check(index, op, built, res);
    if (res.status >= 400) {
      const problem = res.json as { type?: string; detail?: string } | undefined;
      report.lastRefusal[op.operationId] = `${res.status} ${problem?.type?.split('/').pop() ?? ''}: ${(problem?.detail ?? res.text).slice(0, 160)}${built.mutation ? ` [${built.mutation}]` : ''} [${built.level}]`;
    }
    if (res.status >= 200 && res.status < 300) {
      seen2xx.add(op.operationId);
      const routed = routes.match(built.wire.method, built.wire.path.split('?')[0]);
      if (routed.kind === 'operation') {
        if (built.wire.method === 'DELETE') Object.values(routed.pathParams).forEach((id) => pool.remove(id));
        else harvest(routed.operation, built.wire.path, res.json);
      }
    }
    if (before && res.status >= 400 && res.status < 500) {
      report.stateChecks++;
      const after = await target.fingerprint();
      const changed = [...new Set([...Object.keys(after), ...Object.keys(before)])].filter((part) => after[part] !== before[part]).map((part) => (before[part] === undefined ? `${part} (created)` : after[part] === undefined ? `${part} (removed)` : part));
      // The cause names parts without their ids, so the same effect on two accounts is one finding.
      if (changed.length) record('state-changed', index, op, built, `a refused request (${res.status}) changed the state: ${changed.join(', ')}`, changed.map((c) => c.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')).join(','), res);
    }
    if ((index + 1) % batchSize === 0) {
      report.healthChecks++;
      const health = await wire.send({ method: 'GET', path: '/__admin/health', headers: { accept: 'application/json' } }).catch((e: Error) => ({ status: 0, text: e.message }) as WireResponse);
      if (health.status !== 200 || !target.alive()) {
        record('down', index, op, built, `health check after request ${index} answered ${health.status}: ${health.text.slice(0, 200)}`, 'health');
        break;
      }
      await refreshTokens(false);
      report.findings = [...findings.values()];
      report.durationMs = Date.now() - started;
      options.onProgress?.(report);
    }
  }
  report.findings = [...findings.values()];
  report.never2xx = operations.map((o) => o.operationId).filter((id) => !seen2xx.has(id));
  report.durationMs = Date.now() - started;
  wire.close();
  return report;
}

const SCHEME_PREFERENCE: SecuritySchemeName[] = ['AccountToken', 'CompanyToken', 'ClientCredentials', 'AffiliateToken', 'AdminToken'];
function preferredScheme(op: ContractOperation): SecuritySchemeName | undefined {
  return SCHEME_PREFERENCE.find((s) => op.security.includes(s));
}

/** A report as text: totals, then each finding with its reproduction. */
export function formatReport(report: FuzzReport, baseUrl: string): string {
  const lines = [
    `fuzz seed ${report.seed}: ${report.requests} requests (${report.mutated} mutated) in ${(report.durationMs / 1000).toFixed(1)} s`,
    `  by status class: ${Object.entries(report.byStatusClass).sort().map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  state checks ${report.stateChecks}, health checks ${report.healthChecks}`,
    `  5xx found: ${report.findings.filter((f) => f.kind === '5xx').length} distinct (${report.findings.filter((f) => f.kind === '5xx').reduce((n, f) => n + f.count, 0)} requests)`,
    `  violations found: ${report.findings.filter((f) => f.kind !== '5xx').length} distinct (${report.findings.filter((f) => f.kind !== '5xx').reduce((n, f) => n + f.count, 0)} requests)`,
  ];
  if (report.never2xx.length) {
    lines.push(`  operations without any 2xx this run (${report.never2xx.length}), with their last refusal:`);
    for (const id of report.never2xx) lines.push(`    ${id}: ${report.lastRefusal[id] ?? '(no refusal seen)'}`);
  }
  for (const f of report.findings) {
    lines.push(
      '',
      `[${f.kind}] ×${f.count} on ${f.operations.join(', ')} — ${f.detail}`,
      `  first at request #${f.index} (seed ${f.seed}; FUZZ_SEED=${f.seed}), token ${f.level}${f.mutation ? `, mutation ${f.mutation}` : ''}`,
      `  ${toCurl(baseUrl, f.request)}`,
    );
    if (f.response) lines.push(`  → ${f.response.status} ${f.response.body.slice(0, 400)}`);
  }
  return lines.join('\n');
}
