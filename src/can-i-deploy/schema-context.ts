import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { addContractFormats } from '../contract/formats.js';
import { escapePointer, type JsonSchema, type OpenApiDocument } from '../contract/load-contract.js';
import { atPointer } from '../contract/json-pointer.js';

const require = createRequire(import.meta.url);
const CONTRACT_ID = 'https://shipmock.dev/schemas/can-i-deploy-contract.json';

/**
 * A new contract's schemas, compiled on demand by JSON pointer: can-i-deploy checks a few dozen
 * places of a contract it sees once, so it compiles only those (the mock's validator cache
 * compiles all ~500 validators, over a second for a contract it has not seen). Not strict: a
 * contract under review may carry vendor keywords Ajv does not know.
 */
export interface SchemaContext {
  document: OpenApiDocument;
  /** The schema at a pointer with its `$ref`s followed, and the pointer it was found at. */
  resolve(pointer: string): { schema: JsonSchema | boolean | undefined; pointer: string };
  /** Ajv errors of `value` against the schema at `pointer` ([] when valid). */
  validate(pointer: string, value: unknown, options?: { coerce?: boolean }): ErrorObject[];
  /** Ajv errors of `value` against a schema given inline (its local `$ref`s resolve in the contract). */
  validateSchema(schema: JsonSchema, value: unknown, options?: { coerce?: boolean }): ErrorObject[];
}

function newAjv(coerce: boolean): Ajv2020 {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const formats = require('ajv-formats') as { default?: typeof import('ajv-formats').default } & typeof import('ajv-formats').default;
  const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: coerce ? 'array' : false, validateSchema: false, inlineRefs: false });
  (formats.default ?? formats)(ajv);
  addContractFormats(ajv);
  return ajv;
}

/** Makes a schema's local refs ('#/…') point into the contract registered in Ajv. */
function absolutize(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absolutize);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${CONTRACT_ID}${value}` : absolutize(value);
  return out;
}

/**
 * @example
 * const context = createSchemaContext(contract.document);
 * context.validate('#/components/schemas/Id', 'not-a-uuid') // [{ keyword: 'format', … }]
 */
export function createSchemaContext(document: OpenApiDocument): SchemaContext {
  const instances = new Map<boolean, Ajv2020>();
  const compiled = new Map<string, ValidateFunction>();
  const ajvOf = (coerce: boolean) => {
    let ajv = instances.get(coerce);
    if (!ajv) {
      ajv = newAjv(coerce);
      ajv.addSchema({ ...document, $id: CONTRACT_ID });
      instances.set(coerce, ajv);
    }
    return ajv;
  };
  const run = (fn: ValidateFunction, value: unknown): ErrorObject[] => (fn(value) ? [] : [...(fn.errors ?? [])]);

  return {
    document,
    resolve(pointer) {
      let at = pointer;
      let schema = atPointer(document, pointer) as JsonSchema | boolean | undefined;
      for (let hops = 0; schema && typeof schema === 'object' && typeof schema.$ref === 'string' && hops < 30; hops += 1) {
        const ref = schema.$ref as string;
        if (!ref.startsWith('#')) break; // a remote $ref: judged as written
        // A $ref beside other keywords (3.1 allows it) keeps them: the checker follows the ref only for a bare $ref.
        if (Object.keys(schema).some((key) => key !== '$ref' && key !== 'description' && key !== 'summary')) break;
        at = ref;
        schema = atPointer(document, ref) as JsonSchema | boolean | undefined;
      }
      return { schema, pointer: at };
    },
    validate(pointer, value, options = {}) {
      const key = `${options.coerce ? 'c' : 's'}${pointer}`;
      let fn = compiled.get(key);
      if (!fn) {
        fn = ajvOf(Boolean(options.coerce)).getSchema(`${CONTRACT_ID}${pointer}`);
        if (!fn) throw new Error(`no schema at ${pointer}`);
        compiled.set(key, fn);
      }
      return run(fn, options.coerce ? structuredClone(value) : value);
    },
    validateSchema(schema, value, options = {}) {
      const key = `${options.coerce ? 'c' : 's'}:${JSON.stringify(schema)}`;
      let fn = compiled.get(key);
      if (!fn) {
        fn = ajvOf(Boolean(options.coerce)).compile(absolutize(schema) as JsonSchema);
        compiled.set(key, fn);
      }
      return run(fn, value);
    },
  };
}

/**
 * The pointer of the schema that governs `instancePath` below the schema at `pointer`
 * (following properties, items and $refs as far as they go): where a violation "is" in the contract.
 *
 * @example schemaPointerAt(context, '#/components/schemas/Address', '/postalCode') // '#/components/schemas/Address/properties/postalCode'
 */
export function schemaPointerAt(context: SchemaContext, pointer: string, instancePath: string): string {
  let { schema, pointer: at } = context.resolve(pointer);
  for (const raw of instancePath.split('/').slice(1)) {
    const step = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!schema || typeof schema !== 'object') break;
    const properties = schema.properties as Record<string, unknown> | undefined;
    let next: string | undefined;
    if (properties && step in properties) next = `${at}/properties/${escapePointer(step)}`;
    else if (/^\d+$/.test(step) && Array.isArray(schema.prefixItems) && Number(step) < schema.prefixItems.length) next = `${at}/prefixItems/${step}`;
    else if (/^\d+$/.test(step) && schema.items && typeof schema.items === 'object') next = `${at}/items`;
    else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') next = `${at}/additionalProperties`;
    if (!next) break;
    ({ schema, pointer: at } = context.resolve(next));
  }
  return at;
}
