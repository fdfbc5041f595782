import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { Violation } from '../errors/problem.js';
import type { Contract, ContractOperation, JsonSchema, ParameterSpec } from './load-contract.js';

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
  /** Validates a value against a schema of the contract by pointer, e.g. '#/components/schemas/Problem'. */
  validate(pointer: string, value: unknown): Violation[];
}

/** The $id the contract document is registered under in Ajv. */
export const CONTRACT_SCHEMA_ID = 'https://shipmock.dev/schemas/contract.json';

/** Makes the contract's local refs ('#/…') absolute for schemas compiled on their own. */
function absolutizeRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absolutizeRefs);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${CONTRACT_SCHEMA_ID}${value}` : absolutizeRefs(value);
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

/** Validator functions by plan name: `strict` for bodies/responses, `coercing` for parameters. */
export interface CompiledSchemas {
  strict: Record<string, ValidateFunction>;
  coercing: Record<string, ValidateFunction>;
}

export type PlanEntry =
  | { kind: 'pointer'; name: string; pointer: string }
  | { kind: 'schema'; name: string; schema: JsonSchema };

export const PROBLEM_POINTERS = ['#/components/schemas/Problem', '#/components/schemas/ProblemV0'];

const parameterPlanName = (operationId: string, where: ParameterSpec['in']) => `p_${operationId}_${where}`;

/**
 * Every validator the mock needs, named deterministically from the contract: one per distinct
 * body/response schema pointer (shared ones such as Problem appear once) and three parameter
 * validators per operation. The same contract always yields the same plan, which is what lets
 * compiled code be cached (see compiled-contract.ts).
 */
export function compilePlan(contract: Contract): PlanEntry[] {
  const pointers = new Map<string, string>();
  const addPointer = (pointer: string) => {
    if (!pointers.has(pointer)) pointers.set(pointer, `s${pointers.size}`);
  };
  PROBLEM_POINTERS.forEach((p) => contract.document.components?.schemas?.[p.split('/').pop()!] && addPointer(p));
  const entries: PlanEntry[] = [];
  for (const operation of contract.operations) {
    if (operation.requestBody?.schemaPointer) addPointer(operation.requestBody.schemaPointer);
    for (const spec of operation.responses.values()) {
      for (const [mediaType, pointer] of spec.content) if (pointer && mediaType.endsWith('json')) addPointer(pointer);
    }
    for (const where of ['path', 'query', 'header'] as const) {
      const params = operation.parameters.filter((p) => p.in === where);
      entries.push({ kind: 'schema', name: parameterPlanName(operation.operationId, where), schema: locationSchema(params, where === 'query') });
    }
  }
  for (const [pointer, name] of pointers) entries.push({ kind: 'pointer', name, pointer });
  return entries;
}

/**
 * Binds the compiled functions to operations. Nothing is compiled here: `schemas` comes from
 * loadCompiledContract (a warm cache or one compile at start).
 *
 * @example
 * const { contract, schemas } = loadCompiledContract();
 * const validators = createValidators(contract, schemas);
 * validators.forOperation('createAddress').body?.({ name: 'x' }) // [{ field: 'body/street', message: 'is required' }, …]
 */
export function createValidators(contract: Contract, schemas: CompiledSchemas): ContractValidators {
  const pointerNames = new Map<string, string>();
  for (const entry of compilePlan(contract)) if (entry.kind === 'pointer') pointerNames.set(entry.pointer, entry.name);
  const schemaAt = (pointer: string): ValidateFunction => {
    const fn = schemas.strict[pointerNames.get(pointer) ?? ''];
    if (!fn) throw new Error(`no compiled schema at ${pointer}`);
    return fn;
  };
  const check = (fn: ValidateFunction, value: unknown, prefix: string): Violation[] =>
    fn(value) ? [] : toViolations(fn.errors, prefix);

  const perOperation = new Map<string, OperationValidators>();
  for (const operation of contract.operations) perOperation.set(operation.operationId, bindOperation(operation));

  function bindOperation(operation: ContractOperation): OperationValidators {
    const params = (where: ParameterSpec['in']) => schemas.coercing[parameterPlanName(operation.operationId, where)];
    const pathFn = params('path');
    const queryFn = params('query');
    const headerFn = params('header');
    const bodyPointer = operation.requestBody?.schemaPointer;
    const bodyFn = bodyPointer ? schemaAt(bodyPointer) : undefined;
    const responseFns = new Map<number, Map<string, ValidateFunction | null>>();
    for (const [status, spec] of operation.responses) {
      const byMedia = new Map<string, ValidateFunction | null>();
      for (const [mediaType, pointer] of spec.content) {
        byMedia.set(mediaType, pointer && mediaType.endsWith('json') ? schemaAt(pointer) : null);
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
