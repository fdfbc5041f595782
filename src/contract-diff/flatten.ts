import type { DocumentSet } from './load.js';
import { child, isRef, refTarget, type Loc } from './resolve.js';

/**
 * One schema as the comparison sees it: `$ref`s followed (local, across files, with sibling
 * keywords kept), `allOf` parts merged (types and enums intersected, the tightest bound kept,
 * properties and `required` collected), `const` read as a one-value enum, `type` arrays and
 * OpenAPI 3.0's `nullable` read as a set of types, and every keyword remembering the location it
 * came from so a change can point at it.
 */
export interface FlatSchema {
  /** The first location the schema came from (undefined: no schema, which accepts anything). */
  anchor?: Loc;
  /** Allowed types ('number' includes 'integer' here: both are listed); undefined = any. */
  types?: { set: Set<string>; at: Loc };
  /** Allowed values by their JSON text; undefined = any. */
  enum?: { values: Map<string, unknown>; at: Loc };
  lower?: NumericBound;
  upper?: NumericBound;
  counts: Map<CountKeyword, { value: number; at: Loc }>;
  multipleOf?: { value: number; at: Loc };
  uniqueItems?: Loc;
  patterns: Map<string, Loc>;
  format?: { value: string; at: Loc };
  properties: Map<string, Loc[]>;
  required: Map<string, Loc>;
  /** Where the schema refuses undeclared properties (additionalProperties/unevaluatedProperties: false). */
  closed?: Loc;
  additional: Loc[];
  items: Loc[];
  prefixItems: Loc[][];
  variants: VariantGroup[];
  discriminator?: { propertyName: string; mapping: Record<string, string>; at: Loc };
  conditionals: { at: Loc; if?: Loc; then?: Loc; else?: Loc }[];
  dependentRequired: Map<string, { deps: Set<string>; at: Loc }>;
  default?: { value: unknown; at: Loc };
  readOnly: boolean;
  writeOnly: boolean;
  other: Map<string, { value: string; at: Loc }>;
  /** The schema's parts (allOf members, $ref targets), for splitting into variants. */
  parts: Part[];
}

export interface NumericBound {
  value: number;
  exclusive: boolean;
  at: Loc;
}

export interface VariantGroup {
  kind: 'oneOf' | 'anyOf';
  branches: Loc[];
  at: Loc;
}

export interface Part {
  loc: Loc;
  node: Record<string, unknown>;
}

export type CountKeyword = 'minLength' | 'maxLength' | 'minItems' | 'maxItems' | 'minProperties' | 'maxProperties';
export const COUNT_KEYWORDS: readonly CountKeyword[] = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'];

/** Validation keywords compared only as a whole (a change of any is `*-constraint-changed`). */
const OTHER_KEYWORDS = ['not', 'contains', 'minContains', 'maxContains', 'propertyNames', 'patternProperties', 'dependentSchemas', 'unevaluatedItems', 'contentMediaType', 'contentEncoding', 'contentSchema'];

export const ALL_TYPES: readonly string[] = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'];

/** Collects a schema's parts: the schema itself, its `$ref` targets and `allOf` members (cycles cut). */
export function gatherParts(set: DocumentSet, locs: Loc[]): { parts: Part[]; never?: Loc } {
  const parts: Part[] = [];
  let never: Loc | undefined;
  const seen = new Set<string>();
  const visit = (loc: Loc) => {
    const node = loc.node;
    if (node === false) {
      never ??= loc;
      return;
    }
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    const key = `${loc.doc}${loc.pointer}${loc.derived ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    const record = node as Record<string, unknown>;
    if (isRef(node)) {
      visit(refTarget(set, loc.doc, node.$ref));
      const { $ref: _ref, ...siblings } = record;
      if (Object.keys(siblings).length) parts.push({ loc, node: siblings });
    } else {
      parts.push({ loc, node: record });
    }
    if (Array.isArray(record.allOf)) record.allOf.forEach((_, i) => visit(child(loc, 'allOf', i)));
  };
  for (const loc of locs) visit(loc);
  return { parts, never };
}

function typesOf(node: Record<string, unknown>): Set<string> | undefined {
  const raw = node.type;
  if (raw === undefined) return undefined;
  const list = (Array.isArray(raw) ? raw : [raw]).filter((t): t is string => typeof t === 'string');
  const set = new Set(list);
  if (node.nullable === true) set.add('null');
  if (set.has('number')) set.add('integer');
  return set;
}

const asNumber = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * Flattens a schema (given as one or more locations that all apply) for comparison.
 * @example flattenSchema(set, [{ doc, pointer: '#/components/schemas/Address', node }]).required
 */
export function flattenSchema(set: DocumentSet, locs: Loc[]): FlatSchema {
  const { parts, never } = gatherParts(set, locs);
  const flat: FlatSchema = {
    anchor: parts[0]?.loc ?? never,
    counts: new Map(),
    patterns: new Map(),
    properties: new Map(),
    required: new Map(),
    additional: [],
    items: [],
    prefixItems: [],
    variants: [],
    conditionals: [],
    dependentRequired: new Map(),
    readOnly: false,
    writeOnly: false,
    other: new Map(),
    parts,
  };
  if (never) flat.types = { set: new Set(), at: never };
  for (const { loc, node } of parts) {
    const types = typesOf(node);
    if (types) {
      const typeAt = 'type' in node ? child(loc, 'type') : loc;
      flat.types = flat.types ? { set: new Set([...flat.types.set].filter((t) => types.has(t))), at: typeAt } : { set: types, at: typeAt };
    }
    const values = 'const' in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
    if (values) {
      const map = new Map(values.map((v) => [JSON.stringify(v), v]));
      flat.enum = flat.enum ? { values: new Map([...flat.enum.values].filter(([k]) => map.has(k))), at: loc } : { values: map, at: loc };
    }
    const at = (keyword: string) => child(loc, keyword);
    // OpenAPI 3.0 spells exclusive bounds as booleans beside minimum/maximum.
    const minimum = asNumber(node.minimum);
    const exclusiveMinimum = asNumber(node.exclusiveMinimum);
    if (minimum !== undefined) tighten(flat, 'lower', { value: minimum, exclusive: node.exclusiveMinimum === true, at: at('minimum') });
    if (exclusiveMinimum !== undefined) tighten(flat, 'lower', { value: exclusiveMinimum, exclusive: true, at: at('exclusiveMinimum') });
    const maximum = asNumber(node.maximum);
    const exclusiveMaximum = asNumber(node.exclusiveMaximum);
    if (maximum !== undefined) tighten(flat, 'upper', { value: maximum, exclusive: node.exclusiveMaximum === true, at: at('maximum') });
    if (exclusiveMaximum !== undefined) tighten(flat, 'upper', { value: exclusiveMaximum, exclusive: true, at: at('exclusiveMaximum') });
    for (const keyword of COUNT_KEYWORDS) {
      const value = asNumber(node[keyword]);
      if (value === undefined) continue;
      const current = flat.counts.get(keyword);
      const isMin = keyword.startsWith('min');
      if (!current || (isMin ? value > current.value : value < current.value)) flat.counts.set(keyword, { value, at: at(keyword) });
    }
    const multipleOf = asNumber(node.multipleOf);
    if (multipleOf !== undefined) flat.multipleOf = { value: multipleOf, at: at('multipleOf') };
    if (node.uniqueItems === true) flat.uniqueItems = at('uniqueItems');
    if (typeof node.pattern === 'string') flat.patterns.set(node.pattern, at('pattern'));
    if (typeof node.format === 'string') flat.format = { value: node.format, at: at('format') };
    if (node.properties && typeof node.properties === 'object') {
      for (const name of Object.keys(node.properties)) {
        const list = flat.properties.get(name) ?? [];
        list.push(child(loc, 'properties', name));
        flat.properties.set(name, list);
      }
    }
    if (Array.isArray(node.required)) for (const name of node.required) if (typeof name === 'string') flat.required.set(name, at('required'));
    for (const keyword of ['additionalProperties', 'unevaluatedProperties'] as const) {
      if (node[keyword] === false) flat.closed ??= at(keyword);
      else if (keyword === 'additionalProperties' && node[keyword] && typeof node[keyword] === 'object') flat.additional.push(at(keyword));
      else if (keyword === 'unevaluatedProperties' && node[keyword] && typeof node[keyword] === 'object') flat.other.set(keyword, { value: JSON.stringify(node[keyword]), at: at(keyword) });
    }
    if (node.items !== undefined && typeof node.items === 'object' && !Array.isArray(node.items)) flat.items.push(at('items'));
    if (node.items === false) flat.counts.set('maxItems', { value: Array.isArray(node.prefixItems) ? node.prefixItems.length : 0, at: at('items') });
    // OpenAPI 3.0 / draft 4 tuples (items: [...]) read like prefixItems.
    const tuple = Array.isArray(node.prefixItems) ? 'prefixItems' : Array.isArray(node.items) ? 'items' : undefined;
    if (tuple) (node[tuple] as unknown[]).forEach((_, i) => (flat.prefixItems[i] ??= []).push(child(loc, tuple, i)));
    for (const kind of ['oneOf', 'anyOf'] as const) {
      const branches = node[kind];
      if (Array.isArray(branches)) flat.variants.push({ kind, branches: branches.map((_, i) => child(loc, kind, i)), at: at(kind) });
    }
    const discriminator = node.discriminator as { propertyName?: unknown; mapping?: unknown } | undefined;
    if (discriminator && typeof discriminator.propertyName === 'string') {
      flat.discriminator = { propertyName: discriminator.propertyName, mapping: (discriminator.mapping as Record<string, string>) ?? {}, at: at('discriminator') };
    }
    if ('if' in node || 'then' in node || 'else' in node) {
      flat.conditionals.push({ at: loc, if: 'if' in node ? at('if') : undefined, then: 'then' in node ? at('then') : undefined, else: 'else' in node ? at('else') : undefined });
    }
    if (node.dependentRequired && typeof node.dependentRequired === 'object') {
      for (const [key, deps] of Object.entries(node.dependentRequired as Record<string, unknown>)) {
        if (!Array.isArray(deps)) continue;
        const entry = flat.dependentRequired.get(key) ?? { deps: new Set<string>(), at: child(loc, 'dependentRequired', key) };
        for (const dep of deps) entry.deps.add(String(dep));
        flat.dependentRequired.set(key, entry);
      }
    }
    if ('default' in node) flat.default = { value: node.default, at: at('default') };
    if (node.readOnly === true) flat.readOnly = true;
    if (node.writeOnly === true) flat.writeOnly = true;
    for (const keyword of OTHER_KEYWORDS) {
      if (!(keyword in node)) continue;
      const previous = flat.other.get(keyword);
      const value = JSON.stringify(node[keyword]);
      flat.other.set(keyword, { value: previous ? `${previous.value}&${value}` : value, at: at(keyword) });
    }
  }
  normaliseIntegerBounds(flat);
  return flat;
}

function tighten(flat: FlatSchema, side: 'lower' | 'upper', bound: NumericBound): void {
  const current = flat[side];
  if (!current || isTighter(side, current, bound)) flat[side] = bound;
}

/** Whether bound `next` admits fewer values than `previous` on that side. */
export function isTighter(side: 'lower' | 'upper', previous: { value: number; exclusive: boolean }, next: { value: number; exclusive: boolean }): boolean {
  if (next.value === previous.value) return next.exclusive && !previous.exclusive;
  return side === 'lower' ? next.value > previous.value : next.value < previous.value;
}

/** For integers `exclusiveMinimum: 0` is `minimum: 1`: compare them as the same bound. */
function normaliseIntegerBounds(flat: FlatSchema): void {
  const set = flat.types?.set;
  if (!set || set.has('number') || !set.has('integer')) return;
  if (flat.lower?.exclusive) flat.lower = { value: Math.floor(flat.lower.value) + 1, exclusive: false, at: flat.lower.at };
  else if (flat.lower) flat.lower = { ...flat.lower, value: Math.ceil(flat.lower.value) };
  if (flat.upper?.exclusive) flat.upper = { value: Math.ceil(flat.upper.value) - 1, exclusive: false, at: flat.upper.at };
  else if (flat.upper) flat.upper = { ...flat.upper, value: Math.floor(flat.upper.value) };
}
