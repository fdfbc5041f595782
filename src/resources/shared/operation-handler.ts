import type { operations } from '../../client/schema.js';
import type { ContractOperation } from '../../contract/load-contract.js';
import type { Principal } from '../../auth/principal.js';

/** An operation of the contract, by its operationId (the generated types of contract/openapi.yaml). */
export type OperationId = keyof operations;

type ParametersOf<Id extends OperationId> = operations[Id]['parameters'];

type Declared<Id extends OperationId, Where extends 'path' | 'query' | 'header'> = NonNullable<ParametersOf<Id>[Where]>;
/** Header names arrive lower-cased (node:http), so their parameters are keyed lower-cased too. */
type LowerCaseKeys<T> = { [K in keyof T as Lowercase<K & string>]: T[K] };

/** One location's parameters of an operation, as validated (defaults applied); none: an empty object. */
export type ParamsIn<Id extends OperationId, Where extends 'path' | 'query' | 'header'> = [Declared<Id, Where>] extends [never]
  ? Record<string, never>
  : Where extends 'header'
    ? LowerCaseKeys<Declared<Id, Where>>
    : Declared<Id, Where>;

/** The JSON body an operation takes, as validated; undefined where it takes none (or it is optional and absent). */
export type BodyOf<Id extends OperationId> = operations[Id] extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : operations[Id] extends { requestBody?: { content: { 'application/json': infer Body } } }
    ? Body | undefined
    : undefined;

/** What every handler gets whatever its operation: who asks, and for which request. */
export interface RequestContext {
  operation: ContractOperation;
  principal: Principal;
  requestId: string;
  /**
   * The origin of the web page that sent the request when --cors-origin does not vouch for it
   * (src/app/steps/cors.ts): a request a foreign page makes must not reach into private networks.
   */
  foreignPage?: string;
  /**
   * Waits real time outside the request's unit of work (a carrier's latency: CarrierCall.wait),
   * on a store whose batches others wait for (a shared sandbox); rejects with a 503 problem when
   * the request cannot go on after it. Absent elsewhere (and for reads): a plain wait is as good.
   * Nothing read before the wait may be written from after it: read again.
   */
  waitOutside?: (ms: number) => Promise<void>;
}

/**
 * What a resource route receives: the request already matched, authenticated and validated
 * against the contract, so handlers never re-check what the schema checks. Its parts are typed
 * from the contract's generated types for the operation.
 */
export interface OperationContext<Id extends OperationId> extends RequestContext {
  path: ParamsIn<Id, 'path'>;
  query: ParamsIn<Id, 'query'>;
  headers: ParamsIn<Id, 'header'>;
  body: BodyOf<Id>;
}

/** A JSON answer (validated against the contract before it is written) or raw bytes. */
export interface OperationResult {
  status: number;
  body?: unknown;
  /** For non-JSON answers (PDF, PNG, ZPL): written as is with `contentType`. */
  raw?: Buffer | string;
  contentType?: string;
  headers?: Record<string, string>;
}

export type OperationHandler<Id extends OperationId> = (context: OperationContext<Id>) => OperationResult | Promise<OperationResult>;

/** operationId → handler; a family's routes.ts exports one of these. */
export type HandlerMap = { [Id in OperationId]?: OperationHandler<Id> };

/** A request as the contract gate checked it: the parts a handler's typed context is made of. */
export interface CheckedContext extends RequestContext {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
}

/**
 * The handler of an operation, ready for a request the contract gate has checked. The one place
 * where checked values meet the generated types: the gate validated them against exactly the
 * schemas those types are generated from.
 */
export function handlerOf(handlers: HandlerMap, operationId: string): ((context: CheckedContext) => OperationResult | Promise<OperationResult>) | undefined {
  return handlers[operationId as OperationId] as ((context: CheckedContext) => OperationResult | Promise<OperationResult>) | undefined;
}

/** Small helpers so routes read as one line each. */
export const created = (id: string): OperationResult => ({ status: 201, body: { id } });
export const ok = (body: unknown): OperationResult => ({ status: 200, body });
export const noContent = (): OperationResult => ({ status: 204 });
