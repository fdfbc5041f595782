import type { Request } from 'express';
import type { ContractOperation } from '../contract/load-contract.js';
import type { ParsedParameters } from '../contract/validators.js';
import type { Caller } from '../rate-limit/callers.js';
import type { RateLimitState } from '../rate-limit/rate-limiter.js';

/**
 * What the pipeline learns about a request as it moves through the steps. Each step reads
 * what earlier steps wrote; nothing else hangs off `req`.
 */
export type PrincipalLevel = 'COMPANY' | 'ACCOUNT' | 'AFFILIATE' | 'ADMIN';

export interface Principal {
  /** How the caller authenticated: a bearer token of a level, or Basic client credentials. */
  via: 'token' | 'client-credentials';
  level: PrincipalLevel;
  companyId?: string;
  accountId?: string;
  affiliateId?: string;
  clientId: string;
}

export interface RequestState {
  requestId: string;
  startedAt: number;
  /** The request target as received (path and query), before any mount point rewrites it. */
  url: string;
  pathname: string;
  search: URLSearchParams;
  operation?: ContractOperation;
  principal?: Principal;
  params?: ParsedParameters;
  body?: unknown;
  /** Key the rate limiter counted this request under. */
  rateLimitKey?: string;
  /** Who the request counts against: a verified credential or the client address (rate-limit step). */
  caller?: Caller;
  /** Problem slug of the answer, for the request log. */
  problem?: string;
  /** A scenario's own rate-limit window for this request; the rateLimit step reports it instead. */
  rateLimitOverride?: RateLimitState;
  /** Scenario rules that acted on this request ("scenario/rule"), for the journal. */
  scenarioHits?: string[];
}

/** Whether a path belongs to the control plane (/__admin), which is outside the API's rules. */
export function isAdminPath(pathname: string): boolean {
  return pathname === '/__admin' || pathname.startsWith('/__admin/');
}

const STATE = Symbol('shipmock.request-state');

export function requestState(req: Request): RequestState {
  const state = (req as any)[STATE] as RequestState | undefined;
  if (!state) throw new Error('request state read before the request-id step');
  return state;
}

export function initRequestState(req: Request, state: RequestState): RequestState {
  (req as any)[STATE] = state;
  return state;
}
