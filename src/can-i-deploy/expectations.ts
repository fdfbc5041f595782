import { escapePointer, type JsonSchema } from '../contract/load-contract.js';
import { formatPath, variantRules, type Matcher, type RuleSet, type ValuePath } from './matching-rules.js';
import type { SchemaContext } from './schema-context.js';

/** What can-i-deploy found at one place: `broken` fails the gate, `warning` may break (see docs/can-i-deploy.md). */
export interface Finding {
  severity: 'broken' | 'warning';
  /** Where in the interaction: `request.body $.parcels[0].weight`, `response.status`, … */
  at: string;
  /** JSON pointer into the contract of the schema, response or operation concerned. */
  pointer: string;
  message: string;
}

type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** The JSON types a schema admits, or undefined when it does not say (any type). */
function typesOf(schema: JsonSchema): Set<JsonType> | undefined {
  if (typeof schema.type === 'string') return new Set([schema.type as JsonType]);
  if (Array.isArray(schema.type)) return new Set(schema.type as JsonType[]);
  const values = 'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
  if (values) return new Set(values.map(jsonTypeOf));
  return undefined;
}

function admits(types: Set<JsonType> | undefined, type: JsonType): boolean {
  if (!types) return true;
  if (types.has(type)) return true;
  return type === 'integer' && types.has('number');
}

const describeTypes = (types: Set<JsonType>) => [...types].join(' or ');

/** Values a schema allows, when it lists them (`const`, `enum`). */
function listedValues(schema: JsonSchema): unknown[] | undefined {
  if ('const' in schema) return [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

/** Pact's date/time matchers and the JSON Schema format each corresponds to. */
const TIME_FORMATS: Record<string, string> = { date: 'date', time: 'time', timestamp: 'date-time', datetime: 'date-time' };

/** How the consumer judges a value: as written (`exact`), by its type, or by these matchers. */
type Mode = { kind: 'exact' } | { kind: 'type' } | { kind: 'matchers'; matchers: Matcher[]; exact: boolean };

/** Matchers that judge a container's content by type (what `like`, `eachLike`, `atLeastOneLike` write). */
const TYPE_LIKE = new Set(['type', 'values', 'eachValue', 'eachKey', 'arrayContains', 'notEmpty']);

function modeAt(rules: RuleSet, path: ValuePath, inherited: boolean): Mode {
  const found = rules.at(path);
  if (!found) return inherited ? { kind: 'type' } : { kind: 'exact' };
  if (!found.exact) {
    // A rule above this place cascades: a type rule (like/eachLike) judges everything below by type.
    return found.spec.matchers.some((m) => TYPE_LIKE.has(m.match) || m.min !== undefined || m.max !== undefined) ? { kind: 'type' } : { kind: 'exact' };
  }
  return { kind: 'matchers', matchers: found.spec.matchers, exact: true };
}

export interface ExpectationOptions {
  context: SchemaContext;
  rules: RuleSet;
  /** Prefix of a finding's `at`, e.g. 'response.body'. */
  where: string;
  /** Warn when the consumer relies on a field the contract makes optional (responses, messages). */
  warnOptional: boolean;
  findings: Finding[];
}

/**
 * Checks that the provider, as the contract describes it, can produce what the consumer expects
 * at `path`: `value` is the consumer's example, read through its matching rules.
 *
 * - No matcher: the value must be valid as written (Ajv against the schema); objects are
 *   compared key by key (a provider may send more keys than a consumer names), arrays by length
 *   and item.
 * - A type matcher (`like`, and everything below an `eachLike`): the schema must admit a value
 *   of that JSON type; enum, pattern, format and bounds do not matter.
 * - regex: against an enum, at least one listed value must match; otherwise the example must
 *   satisfy the schema (type errors break, pattern/format errors only warn: whether two
 *   regular expressions share a string is not decided here).
 * - integer / number / decimal / boolean / null / date / time / datetime / include: the schema
 *   must produce values the matcher accepts (`decimal` against `integer` breaks; `integer`
 *   against `number` warns).
 * - eachLike min/max: compatible with minItems/maxItems; arrayContains: every variant must be
 *   an item the schema allows.
 * - A field the contract does not have (additionalProperties: false) breaks; a field it has but
 *   does not require warns (the provider may leave it out).
 *
 * @example checkExpectation({ context, rules, where: 'response.body', warnOptional: true, findings }, '#/components/schemas/Address', body)
 */
export function checkExpectation(options: ExpectationOptions, pointer: string, value: unknown, path: ValuePath = [], inherited = false): void {
  const { context, findings, where } = options;
  const { schema, pointer: at } = context.resolve(pointer);
  const place = `${where} ${formatPath(path)}`;
  const add = (severity: Finding['severity'], message: string, schemaPointer = at): void => {
    findings.push({ severity, at: place, pointer: schemaPointer, message });
  };
  if (schema === undefined || schema === true) return;
  if (schema === false) return add('broken', 'the contract allows no value here');

  const mode = modeAt(options.rules, path, inherited);

  // A $ref beside other keywords: the referenced schema applies as well.
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#')) checkExpectation(options, schema.$ref, value, path, inherited);
  if (Array.isArray(schema.allOf)) schema.allOf.forEach((_, i) => checkExpectation(options, `${at}/allOf/${i}`, value, path, inherited));
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const tries = branches.map((_, i) => {
      const local: Finding[] = [];
      checkExpectation({ ...options, findings: local }, `${at}/${keyword}/${i}`, value, path, inherited);
      return local;
    });
    const fitting = tries.filter((t) => !t.some((f) => f.severity === 'broken'));
    if (fitting.length) findings.push(...fitting.sort((a, b) => a.length - b.length)[0]);
    else {
      const closest = tries.sort((a, b) => a.length - b.length)[0];
      add('broken', `matches none of the ${branches.length} alternatives (${keyword}); closest: ${closest[0]?.message ?? 'no match'}`, `${at}/${keyword}`);
    }
  }

  const types = typesOf(schema);
  const type = jsonTypeOf(value);
  const matchers = mode.kind === 'matchers' ? mode.matchers : [];
  const names = new Set(matchers.map((m) => m.match));

  if (type === 'object') {
    if (!admits(types, 'object')) return add('broken', `the consumer expects an object, the contract says ${describeTypes(types!)}`);
    const byValue = names.has('values') || names.has('eachValue') || names.has('eachKey');
    checkObject(options, schema, at, value as Record<string, unknown>, path, mode.kind !== 'exact' || inherited, byValue);
    return;
  }
  if (type === 'array') {
    if (!admits(types, 'array')) return add('broken', `the consumer expects an array, the contract says ${describeTypes(types!)}`);
    checkArray(options, schema, at, value as unknown[], path, mode, inherited);
    return;
  }

  // A primitive.
  if (mode.kind === 'exact') return checkExact(options, at, value, place);
  if (!admits(types, type) && !(names.has('null') && admits(types, 'null'))) {
    return add('broken', `the consumer expects ${article(type)} here, the contract says ${describeTypes(types!)}`);
  }
  if (mode.kind === 'type') return;
  for (const matcher of matchers) checkMatcher(options, schema, at, value, place, matcher);
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function checkExact(options: ExpectationOptions, at: string, value: unknown, place: string): void {
  const errors = options.context.validate(at, value);
  for (const error of errors.filter((e) => !['if', 'then', 'else', 'oneOf', 'anyOf', 'allOf'].includes(e.keyword) || errors.length === 1).slice(0, 3)) {
    const says = error.keyword === 'enum' ? `is not one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}` : (error.message ?? 'is invalid');
    options.findings.push({ severity: 'broken', at: place, pointer: `${at}${error.schemaPath.startsWith('#/') ? error.schemaPath.slice(1) : ''}`, message: `the value ${JSON.stringify(value)} (matched as written) ${says} in the contract` });
  }
}

function checkMatcher(options: ExpectationOptions, schema: JsonSchema, at: string, value: unknown, place: string, matcher: Matcher): void {
  const add = (severity: Finding['severity'], message: string, pointer = at): void => {
    options.findings.push({ severity, at: place, pointer, message });
  };
  const types = typesOf(schema);
  const listed = listedValues(schema);
  switch (matcher.match) {
    case 'type':
    case 'notEmpty':
    case 'semver':
    case 'contentType':
      return; // the type was checked; the contract's values are all of it
    case 'equality':
      return checkExact(options, at, value, place);
    case 'null':
      if (!admits(types, 'null')) add('broken', 'the consumer expects null here, the contract never sends null');
      return;
    case 'boolean':
      if (!admits(types, 'boolean')) add('broken', `the consumer expects a boolean, the contract says ${describeTypes(types!)}`);
      return;
    case 'integer':
      if (types && !types.has('integer')) {
        if (types.has('number')) add('warning', 'the consumer expects an integer; the contract allows any number here');
        else add('broken', `the consumer expects an integer, the contract says ${describeTypes(types)}`);
      }
      return;
    case 'decimal':
      if (types && !types.has('number')) add('broken', `the consumer expects a decimal number, the contract says ${describeTypes(types)}`);
      return;
    case 'number':
      if (!admits(types, 'number') && !admits(types, 'integer')) add('broken', `the consumer expects a number, the contract says ${describeTypes(types!)}`);
      return;
    case 'regex': {
      let regex: RegExp;
      try {
        regex = new RegExp(String(matcher.regex ?? ''), 'u');
      } catch {
        return add('warning', `the consumer's regex ${matcher.regex} is not an ECMAScript regular expression; its example was checked as written`);
      }
      if (listed) {
        const matching = listed.filter((v) => typeof v === 'string' && regex.test(v));
        if (matching.length === 0) add('broken', `no value the contract allows (${listed.map(String).join(', ')}) matches the consumer's regex ${matcher.regex}`, `${at}/${'const' in schema ? 'const' : 'enum'}`);
        return;
      }
      return checkExampleLoosely(options, at, value, place, `the consumer's regex ${matcher.regex}`);
    }
    case 'include': {
      const part = String(matcher.value ?? '');
      if (listed) {
        if (!listed.some((v) => typeof v === 'string' && v.includes(part))) add('broken', `no value the contract allows contains ${JSON.stringify(part)}`, `${at}/enum`);
        return;
      }
      return checkExampleLoosely(options, at, value, place, `include ${JSON.stringify(part)}`);
    }
    case 'date':
    case 'time':
    case 'timestamp':
    case 'datetime': {
      const wanted = TIME_FORMATS[matcher.match];
      const format = typeof schema.format === 'string' ? schema.format : undefined;
      if (format && ['date', 'time', 'date-time'].includes(format) && format !== wanted) {
        add('broken', `the consumer expects a ${matcher.match} (${matcher.format ?? wanted}), the contract sends format ${format}`, `${at}/format`);
        return;
      }
      return checkExampleLoosely(options, at, value, place, `the ${matcher.match} matcher`);
    }
    default:
      add('warning', `matcher ${matcher.match} is not understood here; its example was checked as written`);
      checkExact(options, at, value, place);
  }
}

/**
 * An example under a matcher that loosens its value (regex, include, date/time): the example
 * must be of the schema's type (else broken); failing a pattern, format, length or bound only
 * warns, since the matcher may still accept values the contract produces.
 */
function checkExampleLoosely(options: ExpectationOptions, at: string, value: unknown, place: string, by: string): void {
  const errors = options.context.validate(at, value);
  const typeError = errors.find((e) => e.keyword === 'type');
  if (typeError) {
    options.findings.push({ severity: 'broken', at: place, pointer: `${at}/type`, message: `the example ${JSON.stringify(value)} ${typeError.message} in the contract` });
    return;
  }
  if (errors.length) {
    options.findings.push({
      severity: 'warning',
      at: place,
      pointer: `${at}${errors[0].schemaPath.startsWith('#/') ? errors[0].schemaPath.slice(1) : ''}`,
      message: `the example ${JSON.stringify(value)} ${errors[0].message} in the contract; whether ${by} accepts what the contract produces is not decided`,
    });
  }
}

function propertySchema(schema: JsonSchema, at: string, key: string): string | false | undefined {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (properties && Object.hasOwn(properties, key)) return `${at}/properties/${escapePointer(key)}`;
  const patterns = schema.patternProperties as Record<string, unknown> | undefined;
  for (const pattern of Object.keys(patterns ?? {})) {
    try {
      if (new RegExp(pattern, 'u').test(key)) return `${at}/patternProperties/${escapePointer(pattern)}`;
    } catch {
      // an unusable pattern matches nothing here
    }
  }
  if (schema.additionalProperties === false || schema.unevaluatedProperties === false) return false;
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') return `${at}/additionalProperties`;
  return undefined;
}

function checkObject(options: ExpectationOptions, schema: JsonSchema, at: string, value: Record<string, unknown>, path: ValuePath, byType: boolean, byValue: boolean): void {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const declaresShape = schema.properties !== undefined || schema.additionalProperties !== undefined || schema.patternProperties !== undefined || schema.unevaluatedProperties !== undefined;
  for (const [key, inner] of Object.entries(value)) {
    const place = `${options.where} ${formatPath([...path, key])}`;
    const target = propertySchema(schema, at, key);
    if (target === false) {
      if (declaresShape) options.findings.push({ severity: 'broken', at: place, pointer: `${at}/properties`, message: `the contract has no field ${key} here (additionalProperties: false)` });
      continue;
    }
    if (options.warnOptional && !byValue && target?.includes('/properties/') && !required.has(key)) {
      options.findings.push({ severity: 'warning', at: place, pointer: `${at}/required`, message: `the consumer relies on ${key}, which the contract makes optional (the provider may leave it out)` });
    }
    if (target) checkExpectation(options, target, inner, [...path, key], byType);
  }
}

function checkArray(options: ExpectationOptions, schema: JsonSchema, at: string, value: unknown[], path: ValuePath, mode: Mode, inherited: boolean): void {
  const place = `${options.where} ${formatPath(path)}`;
  const add = (severity: Finding['severity'], message: string, pointer: string): void => {
    options.findings.push({ severity, at: place, pointer, message });
  };
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
  const matchers = mode.kind === 'matchers' ? mode.matchers : [];
  for (const matcher of matchers) {
    if (typeof matcher.min === 'number' && matcher.min > maxItems) add('broken', `the consumer expects at least ${matcher.min} items, the contract sends at most ${maxItems}`, `${at}/maxItems`);
    if (typeof matcher.max === 'number' && matcher.max < minItems) add('broken', `the consumer expects at most ${matcher.max} items, the contract sends at least ${minItems}`, `${at}/minItems`);
  }
  if (mode.kind === 'exact' && !inherited && (value.length < minItems || value.length > maxItems)) {
    add('broken', `the consumer expects exactly ${value.length} items (no matcher), the contract sends ${minItems}..${maxItems === Infinity ? 'any' : maxItems}`, `${at}/${value.length < minItems ? 'minItems' : 'maxItems'}`);
  }
  const itemPointer = (i: number): string | false | undefined => {
    if (Array.isArray(schema.prefixItems) && i < schema.prefixItems.length) return `${at}/prefixItems/${i}`;
    if (schema.items === false) return false;
    return schema.items && typeof schema.items === 'object' ? `${at}/items` : undefined;
  };
  const byType = mode.kind !== 'exact' || inherited;
  const contains = matchers.find((m) => m.match === 'arrayContains');
  if (contains) {
    for (const variant of contains.variants ?? []) {
      const target = itemPointer(variant.index);
      if (target === false) add('broken', 'the contract allows no items here', `${at}/items`);
      else if (target) checkExpectation({ ...options, rules: variantRules(variant.rules), where: `${options.where} ${formatPath([...path, variant.index])}` }, target, value[variant.index], [], false);
    }
    return;
  }
  value.forEach((item, i) => {
    const target = itemPointer(i);
    if (target === false) add('broken', `the contract allows no item ${i} here`, `${at}/items`);
    else if (target) checkExpectation(options, target, item, [...path, i], byType);
  });
}
