import type { ContractOperation } from '../../contract/load-contract.js';
import type { Principal } from '../../http/request-state.js';

/**
 * What a resource route receives: the request already matched, authenticated and validated
 * against the contract, so handlers never re-check what the schema checks.
 */
export interface OperationContext<Body = any> {
  operation: ContractOperation;
  principal: Principal;
  path: Record<string, any>;
  query: Record<string, any>;
  headers: Record<string, any>;
  body: Body;
  requestId: string;
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

export type OperationHandler = (context: OperationContext) => OperationResult | Promise<OperationResult>;

/** operationId → handler; a family's routes.ts exports one of these. */
export type HandlerMap = Record<string, OperationHandler>;

/** Small helpers so routes read as one line each. */
export const created = (id: string): OperationResult => ({ status: 201, body: { id } });
export const ok = (body: unknown): OperationResult => ({ status: 200, body });
export const noContent = (): OperationResult => ({ status: 204 });
