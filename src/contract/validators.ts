import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { clip, MAX_VIOLATIONS, type Violation } from '../errors/problem.js';
import { boundsOf, numericType, parseNumericParameter } from './bounds.js';
import { atPointer } from './json-pointer.js';
import { FORMAT_MESSAGES } from './formats.js';
import type { Contract, ContractOperation, JsonSchema, ParameterSpec } from './load-contract.js';

export interface ParsedParameters {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
}

export interface OperationValidators {
  /** Validates and coerces path/query/header parameters (defaults applied). */
  parameters(input: ParsedParameters): Violation[];
  /**
   * Validates a JSON request body; undefined when the operation takes none. `rawLength` (the
   * body's size in bytes) lets a small body that fails a size bound still get every violation.
   */
  body?: (body: unknown, rawLength?: number) => Violation[];
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
 * Limits of a violation, the same as the contract's Violation schema: a body with 10,000 unknown
 * keys is told about the first MAX_VIOLATIONS of them, and a megabyte key is named by its first
 * characters.
 */
export const MAX_FIELD_LENGTH = 500;
export const MAX_MESSAGE_LENGTH = 1000;

/**
 * A body this small gets the full validation even when it breaks a size bound: its worst case
 * (uniqueItems deep-comparing ~450 uuids, patterns over 16 KiB) costs a few milliseconds.
 */
export const FULL_VALIDATION_BYTES = 16 * 1024;

/**
 * Turns Ajv errors into the mock's violations: `field` is a JSON-pointer-like path prefixed
 * with the location (body, query, path, header), `message` a sentence a person can act on.
 */
export function toViolations(errors: ErrorObject[] | null | undefined, prefix: string): Violation[] {
  if (!errors) return [];
  const seen = new Set<string>();
  const out: Violation[] = [];
  // A value that breaks its format also breaks a pattern that states the format's shape for
  // other tools (a webhook URL's): the format's message says it better, once.
  const badFormat = new Set(errors.filter((e) => e.keyword === 'format').map((e) => e.instancePath));
  for (const error of errors) {
    if (out.length === MAX_VIOLATIONS) break;
    if (error.keyword === 'pattern' && badFormat.has(error.instancePath)) continue;
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
      case 'format': {
        const format = (error.params as { format: string }).format;
        message = FORMAT_MESSAGES[format] ?? `must be a valid ${format}`;
        break;
      }
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
    field = clip(field, MAX_FIELD_LENGTH);
    message = clip(message, MAX_MESSAGE_LENGTH);
    const key = `${field}\u0000${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field, message });
    }
  }
  return out;
}

/**
 * The vendor keyword that marks a cross-field rule of a request body (an entry of the body
 * schema's root `allOf`): stated in the schema so that other tools know it, reported by the
 * mock's service as a `rule-violation` in its own words. The gate leaves such a rule's schema
 * errors out, so a body that breaks only the rule reaches the service (contract/DECISIONS.md,
 * "Cross-field rules").
 */
export const STATED_RULE_KEYWORD = 'x-shipmock-rule';

/**
 * Ajv schema paths of the stated rules of the body schema at `pointer` (its $refs followed):
 * `#/allOf/N` for each marked entry. Errors at the body's root under one of them are the rule's.
 *
 * @example statedRulePaths(document, '#/components/schemas/PudoPointQuery') // ['#/allOf/0']
 */
export function statedRulePaths(document: Contract['document'], pointer: string): string[] {
  let schema = atPointer(document, pointer) as JsonSchema | undefined;
  for (let hops = 0; typeof schema?.$ref === 'string' && hops < 20; hops += 1) schema = atPointer(document, schema.$ref) as JsonSchema | undefined;
  const allOf = Array.isArray(schema?.allOf) ? (schema.allOf as JsonSchema[]) : [];
  return allOf.flatMap((entry, i) => (entry && typeof entry === 'object' && STATED_RULE_KEYWORD in entry ? [`#/allOf/${i}`] : []));
}

/** Validator functions by plan name: `strict` for bodies/responses, `coercing` for parameters, `sizes` for body pre-checks. */
export interface CompiledSchemas {
  strict: Record<string, ValidateFunction>;
  coercing: Record<string, ValidateFunction>;
  /** The bodies' size pre-checks (bounds.ts), fail-fast. */
  sizes: Record<string, ValidateFunction>;
}

export type PlanEntry =
  | { kind: 'pointer'; name: string; pointer: string }
  | { kind: 'schema'; name: string; schema: JsonSchema }
  /** The size-only pre-check of a body schema (bounds.ts), compiled fail-fast into `sizes`. */
  | { kind: 'bounds'; name: string; schema: JsonSchema };

/** Plan name of the size pre-check of the body schema whose plan name is `name`. */
const boundsPlanName = (name: string) => `b_${name}`;

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
      for (const [mediaType, pointer] of spec.content) {
        if (pointer && mediaType.endsWith('json')) addPointer(pointer);
        // A stream (text/event-stream) names the schema of each event's data in contentSchema.
        const eventSchema = pointer && mediaType === 'text/event-stream' ? (atPointer(contract.document, pointer) as { contentSchema?: { $ref?: string } })?.contentSchema?.$ref : undefined;
        if (eventSchema) addPointer(eventSchema);
      }
    }
    for (const where of ['path', 'query', 'header'] as const) {
      const params = operation.parameters.filter((p) => p.in === where);
      entries.push({ kind: 'schema', name: parameterPlanName(operation.operationId, where), schema: locationSchema(params, where === 'query') });
    }
  }
  for (const [pointer, name] of pointers) entries.push({ kind: 'pointer', name, pointer });
  const bodies = new Set(contract.operations.map((o) => o.requestBody?.schemaPointer).filter((p): p is string => !!p));
  for (const pointer of bodies) {
    const bounds = boundsOf(atPointer(contract.document, pointer));
    entries.push({ kind: 'bounds', name: boundsPlanName(pointers.get(pointer)!), schema: bounds === true ? {} : bounds });
  }
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
    const rulePaths = bodyPointer ? statedRulePaths(contract.document, bodyPointer) : [];
    const checkBody = (fn: ValidateFunction, body: unknown): Violation[] => {
      if (fn(body)) return [];
      const errors = rulePaths.length
        ? fn.errors!.filter((e) => !(e.instancePath === '' && rulePaths.some((p) => e.schemaPath === p || e.schemaPath.startsWith(`${p}/`))))
        : fn.errors;
      return toViolations(errors, 'body');
    };
    const boundsFn = bodyPointer ? schemas.sizes[boundsPlanName(pointerNames.get(bodyPointer) ?? '')] : undefined;
    if (bodyPointer && !boundsFn) throw new Error(`no compiled size pre-check for ${bodyPointer}`);
    const numeric = operation.parameters
      .map((p) => ({ name: p.name, where: p.in, type: numericType(contract.document, p.schema) }))
      .filter((p): p is { name: string; where: ParameterSpec['in']; type: 'integer' | 'number' } => p.type !== undefined);
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
        const refused: Violation[] = [];
        for (const p of numeric) {
          const values = input[p.where === 'header' ? 'headers' : p.where];
          const value = values[p.name];
          if (typeof value !== 'string') continue;
          const parsed = parseNumericParameter(value, p.type);
          if (parsed.ok) values[p.name] = parsed.value;
          else {
            // Never handed to Ajv's coercion ('Infinity', '0x10', '1e3' …); the default stands in.
            delete values[p.name];
            refused.push({ field: `${p.where}/${p.name}`, message: `must be of type ${p.type}` });
          }
        }
        return [
          ...refused,
          ...check(pathFn, input.path, 'path'),
          ...check(queryFn, input.query, 'query'),
          ...check(headerFn, input.headers, 'header'),
        ];
      },
      // Sizes first: only a body within every maxItems/maxLength/maxProperties, or one too small
      // to be costly, meets the full validator (allErrors runs every keyword, uniqueItems and
      // patterns included); a larger one is told its first size violation.
      body: bodyFn
        ? (body, rawLength = Infinity) =>
            boundsFn!(body) || rawLength <= FULL_VALIDATION_BYTES ? checkBody(bodyFn, body) : toViolations(boundsFn!.errors, 'body')
        : undefined,
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
