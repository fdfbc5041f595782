import fc from 'fast-check';

/**
 * JSON Schema (2020-12, the subset contract/openapi.yaml uses) → fast-check arbitrary of values
 * that validate against the schema. Covered: $ref, type (also as a list), const, enum,
 * allOf/anyOf/oneOf, string (minLength, maxLength, pattern, format uuid, date-time, date, email,
 * uri, uri-reference, regex), number/integer (minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum, multipleOf, format int32/int64), array (items, prefixItems, minItems,
 * maxItems, uniqueItems), object (properties, required, additionalProperties, propertyNames,
 * minProperties, maxProperties, dependentRequired). Annotations (description, example, default,
 * contentMediaType, …) are ignored.
 *
 * `oneOf` draws from one branch and, where the other branches are conditions on properties
 * (`required`, `const`, `enum`, `not`, nested combinators: the contract's cross-field rules),
 * keeps to the values that miss them; `not` filters the same way. Unknown keywords throw, so a contract that starts
 * using one fails the translator's test instead of producing invalid "valid" requests.
 */
export type JsonSchema = Record<string, any> | boolean;

export interface SchemaContext {
  /** Property name (or `items`) under which this subschema sits, if any. */
  key?: string;
  /** Path of property names from the root. */
  path: string[];
}

export interface ArbitraryOptions {
  /** Resolves a local `$ref` ('#/components/schemas/X'). */
  resolve?: (ref: string) => JsonSchema;
  /** Consulted first for every subschema: an arbitrary to use instead of the translation. */
  override?: (schema: Record<string, any>, context: SchemaContext) => fc.Arbitrary<unknown> | undefined;
  /** Upper bound used where the schema sets none (array items, string length). Default 6 / 24. */
  defaultMaxItems?: number;
  defaultMaxLength?: number;
}

const ANNOTATIONS = new Set([
  'description', 'title', 'example', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly',
  'contentMediaType', 'contentEncoding', '$comment', 'discriminator', 'xml', 'externalDocs', '$id', '$schema',
]);
/** OpenAPI extensions (`x-…`) annotate; they never constrain a value. */
const isAnnotation = (key: string) => ANNOTATIONS.has(key) || key.startsWith('x-');

/**
 * Combinators that allOf members may each bring (two members with a oneOf each, a branch with a
 * `not`): mergeAll keeps every one of them here instead of letting the last member's win.
 */
const CHOICES = '__choices';
const NOTS = '__nots';
interface Combinators {
  [CHOICES]?: { kind: 'oneOf' | 'anyOf'; branches: Record<string, any>[] }[];
  [NOTS]?: Record<string, any>[];
}

const HANDLED = new Set([
  CHOICES, NOTS, 'not',
  '$ref', 'type', 'const', 'enum', 'allOf', 'anyOf', 'oneOf', 'minLength', 'maxLength', 'pattern', 'format',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'items', 'prefixItems', 'minItems',
  'maxItems', 'uniqueItems', 'properties', 'required', 'additionalProperties', 'propertyNames', 'minProperties',
  'maxProperties', 'dependentRequired', 'if', 'then', 'else',
]);

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
const SAFE = { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };

/** Code points, as JSON Schema (and Ajv's ucs2length) count string length. */
export const codePointLength = (s: string) => [...s].length;

/** Merges allOf members into one schema (properties and required united, the rest overridden in order). */
function mergeAll(schemas: Record<string, any>[]): Record<string, any> {
  const out: Record<string, any> = {};
  for (const s of schemas) {
    for (const [k, v] of Object.entries(s)) {
      if (k === 'properties') {
        const merged: Record<string, unknown> = { ...out.properties };
        // The same property in two members must satisfy both.
        for (const [name, sub] of Object.entries(v as Record<string, unknown>)) merged[name] = name in merged ? { allOf: [merged[name], sub] } : sub;
        out.properties = merged;
      }
      else if (k === 'oneOf' || k === 'anyOf') out[CHOICES] = [...(out[CHOICES] ?? []), { kind: k, branches: v }];
      else if (k === CHOICES) out[CHOICES] = [...(out[CHOICES] ?? []), ...v];
      else if (k === 'not') out[NOTS] = [...(out[NOTS] ?? []), v];
      else if (k === NOTS) out[NOTS] = [...(out[NOTS] ?? []), ...v];
      else if (k === 'required') out.required = [...new Set([...(out.required ?? []), ...v])];
      else if (k === 'minimum' || k === 'minLength' || k === 'minItems' || k === 'exclusiveMinimum') out[k] = Math.max(out[k] ?? -Infinity, v);
      else if (k === 'maximum' || k === 'maxLength' || k === 'maxItems' || k === 'exclusiveMaximum') out[k] = Math.min(out[k] ?? Infinity, v);
      else out[k] = v;
    }
  }
  return out;
}

export function schemaArbitrary(root: JsonSchema, options: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const maxItemsDefault = options.defaultMaxItems ?? 6;
  const maxLengthDefault = options.defaultMaxLength ?? 24;

  function resolveRefs(schema: Record<string, any>): Record<string, any> {
    let current = schema;
    for (let hops = 0; typeof current.$ref === 'string'; hops++) {
      if (hops > 20) throw new Error(`$ref loop at ${current.$ref}`);
      if (!options.resolve) throw new Error(`no resolver for $ref ${current.$ref}`);
      const { $ref, ...siblings } = current;
      const target = options.resolve($ref);
      if (typeof target === 'boolean') throw new Error(`boolean schema behind ${$ref} is not supported`);
      // 2020-12: keywords beside $ref apply too.
      current = Object.keys(siblings).length ? mergeAll([target, siblings]) : target;
    }
    return current;
  }

  function build(raw: JsonSchema, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
    if (raw === true) return fc.jsonValue({ maxDepth: 2 });
    if (raw === false) throw new Error(`false schema at /${context.path.join('/')} has no values`);
    if (depth > 24) throw new Error(`schema nested deeper than 24 at /${context.path.join('/')}`);
    const schema = resolveRefs(raw);
    const custom = options.override?.(schema, context);
    if (custom) return custom;
    for (const key of Object.keys(schema)) {
      if (!HANDLED.has(key) && !isAnnotation(key)) throw new Error(`unsupported keyword "${key}" at /${context.path.join('/')}`);
    }
    if ('const' in schema) return fc.constant(structuredClone(schema.const));
    if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum.map((v: unknown) => structuredClone(v)));
    if (Array.isArray(schema.allOf)) {
      const { allOf, ...rest } = schema;
      return build(mergeAll([...allOf.map((s: Record<string, any>) => resolveRefs(s)), rest]), context, depth + 1);
    }
    if (schema.if !== undefined) {
      // if/then/else: values that meet the condition are drawn with `then` applied, the others
      // from the rest of the schema (and `else`), each kept to its side of the condition.
      const { if: condition, then: consequence, else: alternative, ...rest } = schema;
      const holds = conditionHolds(resolveRefs(condition), context);
      const whenTrue = build(mergeAll([rest, resolveRefs(condition), consequence === undefined ? {} : resolveRefs(consequence)]), context, depth + 1).filter(holds);
      const whenFalse = build(alternative === undefined ? rest : mergeAll([rest, resolveRefs(alternative)]), context, depth + 1).filter((v) => !holds(v));
      return fc.oneof(whenTrue, whenFalse);
    }
    if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf) || schema.not !== undefined) return build(mergeAll([schema]), context, depth + 1);
    const { [CHOICES]: choices, [NOTS]: nots, ...rest } = schema as Record<string, any> & Combinators;
    if (Array.isArray(nots) && nots.length > 0) {
      // not: drawn from the rest and kept to the values the negated schemas refuse.
      const refused = nots.map((n) => conditionHolds(resolveRefs(n), context));
      return build(Array.isArray(choices) ? { ...rest, [CHOICES]: choices } : rest, context, depth + 1).filter((v) => !refused.some((holds) => holds(v)));
    }
    if (Array.isArray(choices) && choices.length > 0) {
      // One branch of every choice, merged with the rest; for a oneOf the value must also miss
      // the choice's other branches (exactly one holds).
      const [first, ...others] = choices;
      return fc.oneof(
        ...first.branches.map((branch, index) => {
          const merged = mergeAll([rest, resolveRefs(branch), ...(others.length ? [{ [CHOICES]: others }] : [])]);
          const arbitrary = build(merged, context, depth + 1);
          if (first.kind === 'anyOf') return arbitrary;
          // Siblings the condition checker cannot read (typed alternatives) are disjoint by type.
          const siblings = first.branches.filter((_, i) => i !== index).flatMap((b) => {
            try {
              return [conditionHolds(resolveRefs(b), context)];
            } catch {
              return [];
            }
          });
          return siblings.length ? arbitrary.filter((v) => !siblings.some((holds) => holds(v))) : arbitrary;
        }),
      );
    }
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [inferType(schema)];
    if (types.length > 1) return fc.oneof(...types.map((t) => typed(t, schema, context, depth)));
    return typed(types[0], schema, context, depth);
  }

  function inferType(schema: Record<string, any>): string {
    if (schema.properties || schema.additionalProperties !== undefined || schema.required) return 'object';
    if (schema.items || schema.prefixItems || schema.minItems !== undefined) return 'array';
    if (schema.pattern || schema.format || schema.minLength !== undefined || schema.maxLength !== undefined) return 'string';
    if (schema.minimum !== undefined || schema.maximum !== undefined) return 'number';
    return 'any';
  }

  function typed(type: string, schema: Record<string, any>, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'string':
        return stringArbitrary(schema);
      case 'integer':
        return integerArbitrary(schema);
      case 'number':
        return numberArbitrary(schema);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return arrayArbitrary(schema, context, depth);
      case 'object':
        return objectArbitrary(schema, context, depth);
      case 'any':
        return fc.jsonValue({ maxDepth: 2 });
      default:
        throw new Error(`unknown type "${type}" at /${context.path.join('/')}`);
    }
  }

  function stringArbitrary(schema: Record<string, any>): fc.Arbitrary<string> {
    const minLength: number = schema.minLength ?? 0;
    // The default cap is for free text only: a uuid or URL is as long as it is.
    const free = schema.format === undefined && schema.pattern === undefined;
    const maxLength: number = schema.maxLength ?? (free ? Math.max(minLength, maxLengthDefault) : Infinity);
    const fits = (s: string) => {
      const n = codePointLength(s);
      return n >= minLength && n <= maxLength;
    };
    let base: fc.Arbitrary<string>;
    switch (schema.format) {
      case 'uuid':
        base = fc.uuid();
        break;
      case 'date-time':
        base = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString());
        break;
      case 'date':
        base = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
        break;
      case 'email':
        base = fc.emailAddress({ size: 'small' });
        break;
      case 'uri':
        base = fc.webUrl({ size: 'small' });
        break;
      case 'uri-reference':
        base = fc.oneof(fc.webUrl({ size: 'small' }), fc.webPath({ size: 'small' }).filter((p) => p.startsWith('/')));
        break;
      case 'webhook-url':
      case 'http-url':
        // shipmock's own format (src/contract/formats.ts): absolute http(s) URL, host, optional port.
        base = fc
          .tuple(fc.constantFrom('http', 'https'), fc.constantFrom('127.0.0.1', 'localhost', 'hooks.example.com', '[::1]'), fc.option(fc.integer({ min: 1, max: 65535 })), fc.webPath({ size: 'small' }))
          .map(([scheme, host, port, path]) => `${scheme}://${host}${port === null ? '' : `:${port}`}${path.startsWith('/') ? path : `/${path}`}`);
        break;
      case 'regex':
        base = fc.constantFrom('^[A-Z]+$', '[0-9]{2,4}', 'a|b', '.*');
        break;
      case undefined:
        base = schema.pattern
          ? fc.stringMatching(new RegExp(schema.pattern, 'u'), { size: 'small' })
          : fc.oneof(
              { weight: 4, arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme-ascii', size: 'small' }) },
              { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: 'binary', size: 'small' }) },
            );
        break;
      default:
        throw new Error(`unsupported string format "${schema.format}"`);
    }
    if (schema.pattern && schema.format) {
      const re = new RegExp(schema.pattern, 'u');
      base = base.filter((s) => re.test(s));
    }
    return base.filter(fits);
  }

  function integerArbitrary(schema: Record<string, any>): fc.Arbitrary<number> {
    const bounds = schema.format === 'int32' ? INT32 : SAFE;
    let min = Math.max(bounds.min, Math.ceil(schema.minimum ?? bounds.min));
    let max = Math.min(bounds.max, Math.floor(schema.maximum ?? bounds.max));
    if (schema.exclusiveMinimum !== undefined) min = Math.max(min, Math.floor(schema.exclusiveMinimum) + 1);
    if (schema.exclusiveMaximum !== undefined) max = Math.min(max, Math.ceil(schema.exclusiveMaximum) - 1);
    if (min > max) throw new Error(`integer range ${min}..${max} is empty`);
    const step = schema.multipleOf;
    if (step) {
      const lo = Math.ceil(min / step);
      const hi = Math.floor(max / step);
      return fc.integer({ min: lo, max: hi }).map((k) => k * step);
    }
    return fc.integer({ min, max });
  }

  function numberArbitrary(schema: Record<string, any>): fc.Arbitrary<number> {
    if (schema.multipleOf) return integerArbitrary({ ...schema, multipleOf: schema.multipleOf });
    const lo = Math.max(schema.minimum ?? -1e12, schema.exclusiveMinimum ?? -Infinity);
    const hi = Math.min(schema.maximum ?? 1e12, schema.exclusiveMaximum ?? Infinity);
    const minExcluded = schema.exclusiveMinimum !== undefined && schema.exclusiveMinimum >= (schema.minimum ?? -Infinity);
    const maxExcluded = schema.exclusiveMaximum !== undefined && schema.exclusiveMaximum <= (schema.maximum ?? Infinity);
    return fc
      .double({ min: Math.max(-Number.MAX_VALUE, lo), max: Math.min(Number.MAX_VALUE, hi), noNaN: true, noDefaultInfinity: true, minExcluded, maxExcluded })
      // -0 serialises as 0; keep what is sent and what is checked the same.
      .map((n) => (Object.is(n, -0) ? 0 : n));
  }

  function arrayArbitrary(schema: Record<string, any>, context: SchemaContext, depth: number): fc.Arbitrary<unknown[]> {
    const prefix: JsonSchema[] = schema.prefixItems ?? [];
    const minLength: number = schema.minItems ?? 0;
    const maxLength: number = schema.maxItems ?? Math.max(minLength, maxItemsDefault);
    const itemSchema: JsonSchema = schema.items ?? true;
    const item = build(itemSchema, { key: context.key, path: [...context.path, 'items'] }, depth + 1);
    if (prefix.length) {
      const head = fc.tuple(...prefix.map((s, i) => build(s, { key: context.key, path: [...context.path, String(i)] }, depth + 1)));
      const tail = fc.array(item, { minLength: Math.max(0, minLength - prefix.length), maxLength: Math.max(0, maxLength - prefix.length) });
      return fc.tuple(head, tail).map(([h, t]) => [...h, ...t]);
    }
    if (schema.uniqueItems) return fc.uniqueArray(item, { minLength, maxLength, selector: (v) => stableJson(v) });
    return fc.array(item, { minLength, maxLength });
  }

  function objectArbitrary(schema: Record<string, any>, context: SchemaContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const properties: Record<string, JsonSchema> = schema.properties ?? {};
    const required = new Set<string>(schema.required ?? []);
    const dependent: Record<string, string[]> = schema.dependentRequired ?? {};
    const names = Object.keys(properties);
    for (const name of required) {
      if (!(name in properties) && schema.additionalProperties === false) throw new Error(`required "${name}" is not a property at /${context.path.join('/')}`);
    }
    const values: Record<string, fc.Arbitrary<unknown>> = {};
    for (const name of names) values[name] = build(properties[name], { key: name, path: [...context.path, name] }, depth + 1);
    const maxProperties: number = schema.maxProperties ?? Infinity;
    const minProperties: number = schema.minProperties ?? 0;

    // Extra (additional) properties: only where the schema gives them a schema of their own.
    const extraSchema = schema.additionalProperties;
    const extra: fc.Arbitrary<Record<string, unknown>> =
      extraSchema && typeof extraSchema === 'object'
        ? fc.dictionary(
            schema.propertyNames ? (build({ type: 'string', ...schema.propertyNames }, { path: [...context.path, '(name)'] }, depth + 1) as fc.Arbitrary<string>) : fc.string({ minLength: 1, maxLength: 12 }),
            build(extraSchema, { key: '*', path: [...context.path, '*'] }, depth + 1),
            { maxKeys: Math.min(4, maxProperties === Infinity ? 4 : maxProperties), minKeys: names.length === 0 ? Math.min(minProperties, 4) : 0 },
          ).map((d) => {
            // A dictionary key that collides with a declared property would bypass its schema.
            for (const name of names) delete d[name];
            // __proto__ as an own key survives JSON but not every consumer; keep it out of "valid".
            delete d.__proto__;
            return d;
          })
        : fc.constant({});

    return fc
      .tuple(fc.record(values) as fc.Arbitrary<Record<string, unknown>>, fc.array(fc.boolean(), { minLength: names.length, maxLength: names.length }), extra)
      .map(([all, keep, more]) => {
        const chosen = new Set(names.filter((n, i) => required.has(n) || keep[i]));
        // dependentRequired: a present property brings its dependents (to a fixed point).
        for (let changed = true; changed; ) {
          changed = false;
          for (const [name, deps] of Object.entries(dependent)) {
            if (!chosen.has(name)) continue;
            for (const d of deps) if (!chosen.has(d) && d in all) ((changed = true), chosen.add(d));
          }
        }
        // maxProperties: drop optional properties nobody depends on until it fits.
        const out: Record<string, unknown> = {};
        for (const n of names) if (chosen.has(n)) out[n] = all[n];
        for (const [k, v] of Object.entries(more)) out[k] = v;
        const optional = () => Object.keys(out).filter((k) => !required.has(k) && !Object.entries(dependent).some(([n, deps]) => n in out && deps.includes(k)));
        while (Object.keys(out).length > maxProperties) {
          const drop = optional().pop();
          if (drop === undefined) break;
          delete out[drop];
        }
        return out;
      })
      .filter((o) => {
        const n = Object.keys(o).length;
        return n >= minProperties && n <= maxProperties;
      });
  }

  return build(root, { path: [] }, 0);
}

/** JSON with sorted keys: equal values give equal text (uniqueItems compares by value). */
/**
 * A checker for the conditions the contract writes in `if`: required properties, and properties
 * with a `const` or an `enum`. Anything else is refused, as every unsupported keyword is.
 */
function conditionHolds(condition: Record<string, any>, context: SchemaContext): (value: unknown) => boolean {
  const COMBINATORS = ['not', 'anyOf', 'oneOf', 'allOf'];
  for (const key of Object.keys(condition)) {
    if (key !== 'required' && key !== 'properties' && !COMBINATORS.includes(key) && !isAnnotation(key)) throw new Error(`unsupported keyword "${key}" in a condition at /${context.path.join('/')}`);
  }
  const required: string[] = condition.required ?? [];
  const properties: Record<string, Record<string, any>> = condition.properties ?? {};
  const sub = (list: Record<string, any>[] | undefined) => (list ?? []).map((s) => conditionHolds(s, context));
  const negated = condition.not === undefined ? undefined : conditionHolds(condition.not, context);
  const anyOf = sub(condition.anyOf);
  const oneOf = sub(condition.oneOf);
  const allOf = sub(condition.allOf);
  return (value) => {
    if (negated && negated(value)) return false;
    if (anyOf.length && !anyOf.some((holds) => holds(value))) return false;
    if (oneOf.length && oneOf.filter((holds) => holds(value)).length !== 1) return false;
    if (!allOf.every((holds) => holds(value))) return false;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return true;
    const object = value as Record<string, unknown>;
    if (!required.every((name) => name in object)) return false;
    return Object.entries(properties).every(([name, rule]) => {
      if (!(name in object)) return true;
      if ('const' in rule) return stableJson(object[name]) === stableJson(rule.const);
      if (Array.isArray(rule.enum)) return rule.enum.some((v: unknown) => stableJson(v) === stableJson(object[name]));
      throw new Error(`unsupported condition on ${name} in an if at /${context.path.join('/')}`);
    });
  };
}

export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A resolver of local refs against a document (e.g. the OpenAPI contract). */
export function localResolver(document: Record<string, any>): (ref: string) => JsonSchema {
  return (ref) => {
    if (!ref.startsWith('#/')) throw new Error(`only local $ref is supported (got ${ref})`);
    const found = ref
      .slice(2)
      .split('/')
      .reduce((node: any, seg) => node?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    if (found === undefined) throw new Error(`dangling $ref ${ref}`);
    return found;
  };
}
