import { followRefs } from './json-pointer.js';
import type { JsonSchema, OpenApiDocument } from './load-contract.js';

/**
 * The size pre-check that keeps validation cost bounded.
 *
 * Validators run with Ajv's `allErrors`, so every keyword runs on whatever arrived, bounds or
 * not: a `parcelIds` array of 25,000 uuids still met `uniqueItems` (quadratic deep-equal when
 * the items are a `$ref`) after `maxItems: 50` had failed, and a megabyte string still met its
 * `pattern` and `format` after `maxLength` had failed. The contract bounds every value (the
 * contract-lint test enforces it); this module makes the bounds hold *before* anything costly
 * runs: from each body schema it derives a schema holding only the size keywords (maxLength,
 * maxItems, maxProperties) along the same structure. That schema has nothing but linear,
 * allocation-free checks, so it runs first; only a body within every bound meets the full
 * validator, whose costly keywords then see at most maxItems items and maxLength characters.
 */

/** Where the derived copies of components/schemas live (refs are rewritten to point there). */
export const BOUNDS_SCHEMA_ID = 'https://shipmock.dev/schemas/bounds.json';

const SIZE_KEYWORDS = ['maxLength', 'maxItems', 'maxProperties'] as const;
const COMPONENT_PREFIX = '#/components/schemas/';

function rewriteRef(ref: string): string {
  if (ref.startsWith(COMPONENT_PREFIX)) return `${BOUNDS_SCHEMA_ID}#/$defs/${ref.slice(COMPONENT_PREFIX.length)}`;
  throw new Error(`bounds: unsupported $ref ${ref} (only ${COMPONENT_PREFIX}… inside schemas)`);
}

/**
 * The size-only shadow of a schema: `true` when nothing under it is bounded. A sound
 * approximation: a value the original accepts always passes (alternatives become `anyOf`,
 * conditionals `anyOf: [then, else]`), so the pre-check never refuses a valid body.
 *
 * @example boundsOf({ type: 'array', maxItems: 50, uniqueItems: true, items: { $ref: '#/components/schemas/Id' } })
 * // { maxItems: 50, items: { $ref: 'https://shipmock.dev/schemas/bounds.json#/$defs/Id' } }
 */
export function boundsOf(schema: unknown): JsonSchema | true {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return true;
  const s = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const keyword of SIZE_KEYWORDS) if (typeof s[keyword] === 'number') out[keyword] = s[keyword];
  if (typeof s.$ref === 'string') out.$ref = rewriteRef(s.$ref);
  const mapped = (record: Record<string, unknown>) => {
    const entries = Object.entries(record).map(([key, value]) => [key, boundsOf(value)] as const);
    return entries.some(([, value]) => value !== true) ? Object.fromEntries(entries) : undefined;
  };
  if (s.properties) {
    const properties = mapped(s.properties as Record<string, unknown>);
    if (properties) out.properties = properties;
  }
  // additionalProperties applies to keys matched by neither properties nor patternProperties;
  // without the (dropped) patternProperties it would reach too far, so it is kept only alone.
  if (s.additionalProperties && typeof s.additionalProperties === 'object' && !s.patternProperties) {
    const additional = boundsOf(s.additionalProperties);
    if (additional !== true) out.additionalProperties = additional;
  }
  if (s.propertyNames) {
    const names = boundsOf(s.propertyNames);
    if (names !== true) out.propertyNames = names;
  }
  if (s.items && typeof s.items === 'object') {
    const items = boundsOf(s.items);
    if (items !== true) out.items = items;
  }
  if (Array.isArray(s.prefixItems)) {
    const prefix = s.prefixItems.map(boundsOf);
    if (prefix.some((p: unknown) => p !== true)) out.prefixItems = prefix;
  }
  const all: unknown[] = [];
  if (Array.isArray(s.allOf)) all.push(...s.allOf.map(boundsOf));
  for (const alternatives of [s.anyOf, s.oneOf]) {
    if (!Array.isArray(alternatives)) continue;
    const branches = alternatives.map(boundsOf);
    if (!branches.includes(true)) all.push({ anyOf: branches });
  }
  if (s.then !== undefined || s.else !== undefined) {
    const branches = [boundsOf(s.then), boundsOf(s.else)];
    if (!branches.includes(true)) all.push({ anyOf: branches });
  }
  const kept = all.filter((x) => x !== true);
  if (kept.length) out.allOf = kept;
  return Object.keys(out).length ? out : true;
}

/** The schema registered under BOUNDS_SCHEMA_ID: the size-only shadow of every component schema. */
export function boundsDocument(document: OpenApiDocument): JsonSchema {
  const $defs: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries<unknown>(document.components?.schemas ?? {})) $defs[name] = boundsOf(schema);
  return { $id: BOUNDS_SCHEMA_ID, $defs };
}

/** Deepest nesting of arrays and objects a JSON body may have (the contract's own is under 10). */
export const MAX_JSON_DEPTH = 32;
/** Most keys one JSON object of a body may have (the contract's largest object takes 50). */
export const MAX_JSON_KEYS = 1000;
/**
 * Most values (array elements and object members) a body may hold in all: the largest valid
 * body the contract allows holds about a thousand; a megabyte of `[[1,2],[3]],…` holds 200,000
 * and costs JSON.parse up to 90 ms on a loaded machine.
 */
export const MAX_JSON_VALUES = 20_000;

/**
 * What is wrong with the shape of raw JSON text, found by one scan of the bytes (strings
 * skipped) before JSON.parse; undefined when nothing is. A megabyte of `[` costs JSON.parse
 * ~400 ms (and later overflows the stack of anything recursive: JSON.stringify, deep-equal);
 * 40,000 keys in one object ~50 ms; 200,000 small values up to 90 ms. The scan costs ~1 ms
 * per megabyte.
 *
 * @example jsonShapeProblem(Buffer.from('[[[]]]'), { depth: 2 }) // 'must not nest arrays and objects deeper than 2 levels'
 */
export function jsonShapeProblem(raw: Uint8Array, limits: { depth?: number; keys?: number; values?: number } = {}): string | undefined {
  const maxDepth = limits.depth ?? MAX_JSON_DEPTH;
  const maxKeys = limits.keys ?? MAX_JSON_KEYS;
  const maxValues = limits.values ?? MAX_JSON_VALUES;
  const keys = new Uint32Array(maxDepth + 2);
  let values = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return `must not nest arrays and objects deeper than ${maxDepth} levels`;
      keys[depth] = 0;
      if (++values > maxValues) return `must not hold more than ${maxValues} values`;
    } else if (c === 0x5d || c === 0x7d) depth--;
    // Each comma separates one more element or member.
    else if (c === 0x2c && ++values > maxValues) return `must not hold more than ${maxValues} values`;
    // Outside strings a colon only ever follows an object's key.
    else if (c === 0x3a && ++keys[depth] > maxKeys) return `must not have an object with more than ${maxKeys} keys`;
  }
  return undefined;
}

/** Bump when boundsOf changes: the derived pre-checks are compiled into the validator cache. */
export const BOUNDS_DERIVATION_VERSION = 3;

/**
 * Numeric parameters (query, path, header) are parsed here, strictly, before Ajv sees them:
 * Ajv's coercion takes anything `+value` understands — `Infinity`, `1e309` (both Infinity,
 * which then skips minimum/maximum), `0x10`, `+5`, ` 10` — and the string 'Infinity' became a
 * page size. An integer is an optional minus and decimal digits; a number may add a fraction.
 * Anything else is refused as 'must be of type integer' (400 naming the parameter) and never
 * reaches Ajv's coercion. Digits too many for a double become ±Number.MAX_VALUE, so `maximum`/`minimum`
 * refuse them with the declared range in the message.
 */
const INTEGER_TEXT = /^-?[0-9]{1,400}$/;
const NUMBER_TEXT = /^-?[0-9]{1,400}(?:\.[0-9]{1,400})?$/;

/**
 * @example parseNumericParameter('20', 'integer') // { ok: true, value: 20 }
 * @example parseNumericParameter('Infinity', 'integer') // { ok: false }
 */
export function parseNumericParameter(value: string, type: 'integer' | 'number'): { ok: true; value: number } | { ok: false } {
  if (!(type === 'integer' ? INTEGER_TEXT : NUMBER_TEXT).test(value)) return { ok: false };
  const n = Number(value);
  if (Number.isFinite(n)) return { ok: true, value: n };
  return { ok: true, value: value.startsWith('-') ? -Number.MAX_VALUE : Number.MAX_VALUE };
}

/** The `type` of a parameter schema when it is numeric (following local refs), else undefined. */
export function numericType(document: OpenApiDocument, schema: JsonSchema | undefined): 'integer' | 'number' | undefined {
  let s: { type?: string | string[] } | undefined;
  try {
    s = followRefs(document, schema).value as typeof s;
  } catch {
    return undefined;
  }
  const types = s?.type === undefined ? [] : ([] as string[]).concat(s.type);
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  return undefined;
}
