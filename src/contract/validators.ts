import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Violation } from '../errors/problem.js';
import type { Contract, ContractOperation, JsonSchema, ParameterSpec } from './load-contract.js';

// ajv-formats' CommonJS default export sits under .default with NodeNext resolution.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof addFormatsModule.default;

/** OpenAPI keywords that are not JSON Schema: known to Ajv as no-ops so strict mode stays on. */
const OPENAPI_KEYWORDS = [
  'openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'components', 'security', 'tags',
  'webhooks', 'externalDocs', 'example', 'discriminator', 'xml',
];

export interface ParsedParameters {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
}

export interface OperationValidators {
  /** Validates and coerces path/query/header parameters (defaults applied). */
  parameters(input: ParsedParameters): Violation[];
  /** Validates a JSON request body; undefined when the operation takes none. */
  body?: (body: unknown) => Violation[];
  /** Validates a response; `null` means the status or media type is not declared. */
  response(status: number, mediaType: string | undefined, body: unknown): Violation[] | null;
}

export interface ContractValidators {
  forOperation(operationId: string): OperationValidators;
  /** Validates a value against any schema of the contract by pointer, e.g. '#/components/schemas/Problem'. */
  validate(pointer: string, value: unknown): Violation[];
}

function createAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictRequired: false,
    strictTypes: false,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: coerce,
    validateFormats: true,
  });
  addFormats(ajv);
  for (const keyword of OPENAPI_KEYWORDS) ajv.addKeyword({ keyword });
  return ajv;
}

/** Makes the contract's local refs ('#/…') absolute ('contract#/…') for schemas compiled on their own. */
function absolutizeRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absolutizeRefs);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `contract${value}` : absolutizeRefs(value);
  }
  return out;
}

function locationSchema(params: ParameterSpec[], closed: boolean): JsonSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const p of params) {
    properties[p.name] = absolutizeRefs(p.schema);
    if (p.required) required.push(p.name);
  }
  return { type: 'object', properties, required, ...(closed ? { additionalProperties: false } : {}) };
}

/**
 * Turns Ajv errors into the mock's violations: `field` is a JSON-pointer-like path prefixed
 * with the location (body, query, path, header), `message` a sentence a person can act on.
 */
export function toViolations(errors: ErrorObject[] | null | undefined, prefix: string): Violation[] {
  if (!errors) return [];
  const seen = new Set<string>();
  const out: Violation[] = [];
  for (const error of errors) {
    let field = prefix + error.instancePath;
    let message = error.message ?? 'is invalid';
    switch (error.keyword) {
      case 'required':
        field += `/${(error.params as { missingProperty: string }).missingProperty}`;
        message = 'is required';
        break;
      case 'additionalProperties':
      case 'unevaluatedProperties': {
        const params = error.params as { additionalProperty?: string; unevaluatedProperty?: string };
        field += `/${params.additionalProperty ?? params.unevaluatedProperty}`;
        message = prefix === 'query' ? 'is not a known query parameter' : 'is not allowed';
        break;
      }
      case 'enum':
        message = `must be one of: ${(error.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
        break;
      case 'format':
        message = `must be a valid ${(error.params as { format: string }).format}`;
        break;
      case 'type':
        message = `must be of type ${(error.params as { type: string }).type}`;
        break;
      case 'if':
      case 'anyOf':
      case 'oneOf':
        // The branch errors already say what is wrong; the summary adds nothing.
        if (errors.length > 1) continue;
        break;
    }
    const key = `${field}\u0000${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field, message });
    }
  }
  return out;
}

/**
 * Compiles every validator of the contract once (at start), caching by schema pointer so the
 * shared Problem schema is compiled once, not once per operation.
 *
 * @example
 * const validators = createValidators(loadContract());
 * validators.forOperation('createAddress').body?.({ name: 'x' }) // [{ field: 'body/street', message: 'is required' }, …]
 */
export function createValidators(contract: Contract): ContractValidators {
  const strictAjv = createAjv(false);
  const coercingAjv = createAjv(true);
  strictAjv.addSchema({ ...contract.document, $id: 'contract' });
  coercingAjv.addSchema({ ...contract.document, $id: 'contract' });

  const byPointer = new Map<string, ValidateFunction>();
  const schemaAt = (pointer: string): ValidateFunction => {
    let fn = byPointer.get(pointer);
    if (!fn) {
      fn = strictAjv.getSchema(`contract${pointer}`);
      if (!fn) throw new Error(`no schema at ${pointer}`);
      byPointer.set(pointer, fn);
    }
    return fn;
  };
  const check = (fn: ValidateFunction, value: unknown, prefix: string): Violation[] =>
    fn(value) ? [] : toViolations(fn.errors, prefix);

  const perOperation = new Map<string, OperationValidators>();
  for (const operation of contract.operations) perOperation.set(operation.operationId, compileOperation(operation));

  function compileOperation(operation: ContractOperation): OperationValidators {
    const byLocation = (where: ParameterSpec['in']) => operation.parameters.filter((p) => p.in === where);
    const pathFn = coercingAjv.compile(locationSchema(byLocation('path'), false));
    const queryFn = coercingAjv.compile(locationSchema(byLocation('query'), true));
    const headerFn = coercingAjv.compile(locationSchema(byLocation('header'), false));
    const bodyPointer = operation.requestBody?.schemaPointer;
    const bodyFn = bodyPointer ? schemaAt(bodyPointer) : undefined;
    const responseFns = new Map<number, Map<string, ValidateFunction | null>>();
    for (const [status, spec] of operation.responses) {
      const byMedia = new Map<string, ValidateFunction | null>();
      for (const [mediaType, pointer] of spec.content) {
        const isJson = mediaType.endsWith('json');
        byMedia.set(mediaType, pointer && isJson ? schemaAt(pointer) : null);
      }
      responseFns.set(status, byMedia);
    }
    return {
      parameters(input) {
        return [
          ...check(pathFn, input.path, 'path'),
          ...check(queryFn, input.query, 'query'),
          ...check(headerFn, input.headers, 'header'),
        ];
      },
      body: bodyFn ? (body) => check(bodyFn, body, 'body') : undefined,
      response(status, mediaType, body) {
        const declared = responseFns.get(status);
        if (!declared) return null;
        if (declared.size === 0) return body === undefined ? [] : [{ field: 'body', message: 'must be empty' }];
        if (!mediaType || !declared.has(mediaType)) return null;
        const fn = declared.get(mediaType);
        return fn ? check(fn, body, 'body') : [];
      },
    };
  }

  return {
    forOperation(operationId) {
      const found = perOperation.get(operationId);
      if (!found) throw new Error(`unknown operationId ${operationId}`);
      return found;
    },
    validate(pointer, value) {
      return check(schemaAt(pointer), value, 'body');
    },
  };
}
