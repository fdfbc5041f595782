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
  validate(pointer: string, value: unknown): ErrorObject[];
  /** Ajv errors of `value` against a schema given inline (its local `$ref`s resolve in the contract). */
  validateSchema(schema: JsonSchema | boolean, value: unknown): ErrorObject[];
}

function newAjv(): Ajv2020 {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const formats = require('ajv-formats') as { default?: typeof import('ajv-formats').default } & typeof import('ajv-formats').default;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, inlineRefs: false });
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
  let ajv: Ajv2020 | undefined;
  // Keyed by the schema's text: the many places that share a schema (`$ref: Id`, a bounded
  // string) share one compiled function, which is most of can-i-deploy's time saved.
  const compiled = new Map<string, ValidateFunction>();
  const byPointer = new Map<string, ValidateFunction>();
  const compile = (schema: JsonSchema | boolean): ValidateFunction => {
    const key = JSON.stringify(schema);
    let fn = compiled.get(key);
    if (!fn) {
      if (!ajv) {
        ajv = newAjv();
        ajv.addSchema({ ...document, $id: CONTRACT_ID });
      }
      fn = ajv.compile(absolutize(schema) as JsonSchema);
      compiled.set(key, fn);
    }
    return fn;
  };
  const run = (fn: ValidateFunction, value: unknown): ErrorObject[] => (fn(value) ? [] : [...(fn.errors ?? [])]);
  const resolve = (pointer: string) => {
    let at = pointer;
    let schema = atPointer(document, pointer) as JsonSchema | boolean | undefined;
    for (let hops = 0; schema && typeof schema === 'object' && typeof schema.$ref === 'string' && hops < 30; hops += 1) {
      const ref = schema.$ref as string;
      if (!ref.startsWith('#')) break; // a remote $ref: judged as written
      // A $ref beside other keywords (3.1 allows it) keeps them: the checker follows only a bare $ref.
      if (Object.keys(schema).some((key) => key !== '$ref' && key !== 'description' && key !== 'summary')) break;
      at = ref;
      schema = atPointer(document, ref) as JsonSchema | boolean | undefined;
    }
    return { schema, pointer: at };
  };
  const validate = (pointer: string, value: unknown): ErrorObject[] => {
    let fn = byPointer.get(pointer);
    if (!fn) {
      const { schema } = resolve(pointer);
      if (schema === undefined) throw new Error(`no schema at ${pointer}`);
      fn = compile(schema);
      byPointer.set(pointer, fn);
    }
    return run(fn, value);
  };
  const validateSchema = (schema: JsonSchema | boolean, value: unknown): ErrorObject[] => {
    // A bare $ref (a parameter's `$ref: Id` with its description) is the schema it names.
    if (typeof schema === 'object' && typeof schema.$ref === 'string' && schema.$ref.startsWith('#') && Object.keys(schema).every((k) => ['$ref', 'description', 'summary', 'example', 'examples'].includes(k))) {
      return validate(schema.$ref, value);
    }
    return run(compile(schema), value);
  };
  return { document, resolve, validate, validateSchema };
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
