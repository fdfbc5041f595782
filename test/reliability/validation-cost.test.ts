import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../src/contract/gate.js';
import { MAX_JSON_DEPTH, MAX_JSON_KEYS, MAX_JSON_VALUES } from '../../src/contract/bounds.js';
import { atPointer } from '../../src/contract/json-pointer.js';
import { FULL_VALIDATION_BYTES } from '../../src/contract/validators.js';
import { createHarness, newAccount, type TestAccount, harnessInternals } from '../support/harness.js';

/**
 * Validation cost is bounded: no body under the body limit holds the event loop for long.
 * For every operation that takes a body, worst-case bodies just under the limit (1 MiB) are
 * built from the contract — every array filled with distinct uuids, or with objects; every
 * string a near-megabyte; thousands of unknown keys; deep nesting — and the synchronous part
 * of request validation (depth scan, JSON.parse, size pre-check, full validation) is timed.
 * Before the fix, `parcelIds` with 25,000 uuids alone took 3.7 s (uniqueItems, O(n²)).
 */
const h = createHarness();
const LIMIT = harnessInternals(h).runtime.options.bodyLimit;
/** Generous for a loaded 2-core CI machine; the worst measured here is reported in the log. */
const BOUND_MS = 200;
const doc = h.contract.document;

function resolve(schema: any): any {
  for (let hops = 0; schema?.$ref && hops < 20; hops++) schema = atPointer(doc, schema.$ref);
  return schema;
}

/** The body schema's own properties (through allOf and $ref), with their resolved schemas. */
function propertiesOf(schema: any, out: Record<string, any> = {}): Record<string, any> {
  const s = resolve(schema);
  for (const [name, sub] of Object.entries<any>(s?.properties ?? {})) out[name] = resolve(sub);
  for (const part of s?.allOf ?? []) propertiesOf(part, out);
  return out;
}

/** Fills every array with `item()` and every string with `text` until the body reaches ~limit bytes. */
function fill(props: Record<string, any>, budget: number, item: () => unknown, text: (n: number) => string, maxValues = Infinity): Record<string, unknown> {
  const arrays = Object.keys(props).filter((k) => [].concat(props[k]?.type ?? []).includes('array' as never));
  const strings = Object.keys(props).filter((k) => [].concat(props[k]?.type ?? []).includes('string' as never));
  const share = Math.floor(budget / Math.max(1, arrays.length + strings.length));
  const body: Record<string, unknown> = {};
  for (const k of arrays) {
    const one = JSON.stringify(item()).length + 1;
    body[k] = Array.from({ length: Math.min(Math.floor(share / one), Math.floor(maxValues / arrays.length)) }, item);
  }
  for (const k of strings) body[k] = text(share - 20);
  return body;
}

interface Case {
  operationId: string;
  variant: string;
  raw: Buffer;
}

function worstCases(): Case[] {
  const cases: Case[] = [];
  const budget = LIMIT - 4096;
  for (const op of h.contract.operations) {
    const pointer = op.requestBody?.schemaPointer;
    if (!pointer) continue;
    const props = propertiesOf(atPointer(doc, pointer));
    const variants: Record<string, unknown> = {
      'arrays of distinct uuids, long strings': fill(props, budget, () => randomUUID(), (n) => 'a'.repeat(n)),
      // Just under the value limit, so the size pre-check (not the byte scan) refuses it.
      [`arrays of ${MAX_JSON_VALUES - 1000} distinct uuids`]: fill(props, budget, () => randomUUID(), (n) => 'a'.repeat(n), MAX_JSON_VALUES - 1000),
      'arrays of objects, digit strings': fill(props, budget, () => ({ id: randomUUID().slice(0, 8) }), (n) => '0'.repeat(n)),
      'arrays of nested arrays, spaced strings': fill(props, budget, () => [[1, 2], [3]], (n) => 'a '.repeat(n / 2)),
      '40,000 unknown keys': Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, i])),
      '1,000 unknown keys': Object.fromEntries(Array.from({ length: MAX_JSON_KEYS }, (_, i) => [`k${i}`, 'v'.repeat(900)])),
      [`nested ${MAX_JSON_DEPTH + 1} deep`]: JSON.parse(`${'{"a":'.repeat(MAX_JSON_DEPTH)}{}${'}'.repeat(MAX_JSON_DEPTH)}`),
    };
    for (const [variant, body] of Object.entries(variants)) {
      const raw = Buffer.from(JSON.stringify(body));
      expect(raw.length, `${op.operationId} ${variant}`).toBeLessThanOrEqual(LIMIT);
      cases.push({ operationId: op.operationId, variant, raw });
    }
    // Just under the size that still gets the full validation after a size bound failed.
    const small = fill(props, FULL_VALIDATION_BYTES - 256, () => randomUUID(), (n) => 'a'.repeat(n));
    cases.push({ operationId: op.operationId, variant: 'full validation at 16 KiB of distinct uuids', raw: Buffer.from(JSON.stringify(small)) });
    // A megabyte of '[' (the nesting attack on JSON.parse itself).
    cases.push({ operationId: op.operationId, variant: 'a megabyte of [', raw: Buffer.from('['.repeat(LIMIT - 1)) });
  }
  return cases;
}

/** What validate-request does synchronously with a body: depth scan, JSON.parse, validation. */
function validateSync(operationId: string, raw: Buffer): { ms: number; refused: boolean } {
  const started = performance.now();
  let refused = false;
  try {
    const body = parseJsonBody(raw);
    refused = (h.validators.forOperation(operationId).body?.(body, raw.length) ?? []).length > 0;
  } catch {
    refused = true;
  }
  return { ms: performance.now() - started, refused };
}

describe('validation cost is bounded for worst-case bodies under the body limit', () => {
  const timings: { what: string; ms: number }[] = [];

  afterAll(() => {
    timings.sort((a, b) => b.ms - a.ms);
    console.log(`validation cost: ${timings.length} bodies, worst ${timings.slice(0, 5).map((t) => `${t.ms.toFixed(1)} ms ${t.what}`).join('; ')}`);
  });

  it(`every operation, every variant: refused, each under ${BOUND_MS} ms`, () => {
    const cases = worstCases();
    expect(cases.length).toBeGreaterThan(100);
    // Warm the validators once (first calls include V8's compilation of the generated code).
    for (const c of cases.slice(0, 6)) validateSync(c.operationId, c.raw);
    const slow: string[] = [];
    for (const c of cases) {
      const { ms, refused } = validateSync(c.operationId, c.raw);
      const what = `${c.operationId} (${c.variant}, ${c.raw.length} bytes)`;
      timings.push({ what, ms });
      expect(refused, what).toBe(true);
      if (ms > BOUND_MS) slow.push(`${what}: ${ms.toFixed(0)} ms`);
    }
    expect(slow).toEqual([]);
  }, 120_000);
});

describe('through HTTP', () => {
  let a: TestAccount;
  beforeAll(async () => {
    a = await newAccount(h);
  });

  it('19,000 distinct parcelIds → 400 naming parcelIds, quickly (25,000 took 3.7 s of uniqueItems)', async () => {
    const ids = Array.from({ length: MAX_JSON_VALUES - 1000 }, () => randomUUID());
    const started = performance.now();
    const res = await h.http.post('/v1/shipment-bookings').set('Authorization', a.auth).send({ parcelIds: ids });
    const ms = performance.now() - started;
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toContainEqual({ field: 'body/parcelIds', message: 'must NOT have more than 50 items' });
    expect(ms).toBeLessThan(BOUND_MS * 5);
  });

  it('25,000 values in all → 400 before JSON.parse', async () => {
    const res = await h.http.post('/v1/shipment-bookings').set('Authorization', a.auth).send({ parcelIds: Array.from({ length: 25_000 }, () => randomUUID()) });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toEqual([{ field: 'body', message: `must not hold more than ${MAX_JSON_VALUES} values` }]);
  });

  it('a body nested deeper than the limit → 400 naming the body, not a crash', async () => {
    const raw = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    const res = await h.http.post('/v1/addresses').set('Authorization', a.auth).set('Content-Type', 'application/json').send(raw);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toEqual([{ field: 'body', message: `must not nest arrays and objects deeper than ${MAX_JSON_DEPTH} levels` }]);
  });

  it('nesting up to the limit inside a string is not nesting', async () => {
    const res = await h.http
      .post('/v1/addresses')
      .set('Authorization', a.auth)
      .send({ name: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[', street: 'Hauptstrasse 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' });
    expect(res.status).toBe(201);
  });

  it('40,000 keys in one object → 400 before JSON.parse', async () => {
    const body = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, i]));
    const res = await h.http.post('/v1/addresses').set('Authorization', a.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toEqual([{ field: 'body', message: `must not have an object with more than ${MAX_JSON_KEYS} keys` }]);
  });

  it('900 unknown keys on a closed object → the first 100 named', async () => {
    const body = Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`k${i}`, i]));
    const res = await h.http.post('/v1/addresses').set('Authorization', a.auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toHaveLength(100);
    expect(res.body.properties.violations).toContainEqual({ field: 'body/k0', message: 'is not allowed' });
  });

  it('a small body over a size bound still gets every violation', async () => {
    const res = await h.http
      .post('/v1/addresses')
      .set('Authorization', a.auth)
      .send({ name: 'x'.repeat(101), street: 's', city: 'c', postalCode: '1', countryCode: 'Germany' });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toEqual(
      expect.arrayContaining([
        { field: 'body/name', message: 'must NOT have more than 100 characters' },
        { field: 'body/countryCode', message: 'must NOT have more than 2 characters' },
        { field: 'body/countryCode', message: expect.stringContaining('must match pattern') },
      ]),
    );
  });

  it('a large body over a size bound is told its size violation alone', async () => {
    const res = await h.http
      .post('/v1/addresses')
      .set('Authorization', a.auth)
      .send({ name: 'x'.repeat(FULL_VALIDATION_BYTES), street: 's', city: 'c', postalCode: '1', countryCode: 'Germany' });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toEqual([{ field: 'body/name', message: 'must NOT have more than 100 characters' }]);
  });

  it('more than 100 violations → the first 100, and a detail within the Problem schema', async () => {
    const res = await h.http
      .post('/v1/zones')
      .set('Authorization', a.auth)
      .send({ name: 'Z', countryCodes: ['DE'], postalCodeRanges: Array.from({ length: 100 }, () => ({})) });
    expect(res.status).toBe(400);
    expect(res.body.properties.violations).toHaveLength(100);
    expect(res.body.detail.length).toBeLessThanOrEqual(4000);
  });

  it('a megabyte-long unknown key is named by its first characters', async () => {
    const key = 'k'.repeat(LIMIT - 200);
    const res = await h.http.post('/v1/addresses').set('Authorization', a.auth).send({ [key]: 1 });
    expect(res.status).toBe(400);
    const field = res.body.properties.violations.find((v: { field: string }) => v.field.startsWith('body/kkk')).field;
    expect(field.length).toBe(500);
  });
});
