import { parseAuthorization, type Authorization } from '../auth/authorization.js';
import type { Principal } from '../auth/principal.js';
import type { Violation } from '../errors/problem.js';
import type { CheckedRequest } from '../contract/gate.js';
import type { ContractOperation } from '../contract/load-contract.js';
import type { ParsedParameters } from '../contract/validators.js';
import type { Caller } from '../rate-limit/callers.js';
import type { RateLimitState } from '../rate-limit/rate-limiter.js';
import type { ApiRequest } from './types.js';

/** Scenario effects that act on the answer once it is composed (src/app/answer-effects.ts). */
export interface AnswerEffects {
  /** validation: strict — echo violations in X-Shipmock-Violations; an answer outside the contract becomes a 500. */
  strict?: boolean;
  /** Damage the body: cut it off mid-way, or make it malformed. */
  corrupt?: 'truncate' | 'malformed';
  /** reset: after — close the connection instead of answering. */
  drop?: boolean;
}

/**
 * What the pipeline learns about a request as it moves through the steps. Each step reads
 * what earlier steps wrote; nothing else hangs off `req`.
 */
export interface RequestState {
  requestId: string;
  startedAt: number;
  method: string;
  /** The request target as received (path and query), before any mount point rewrites it. */
  url: string;
  pathname: string;
  search: URLSearchParams;
  /** The Authorization header, parsed once (authorizationOf). */
  authorization?: Authorization;
  operation?: ContractOperation;
  principal?: Principal;
  params?: ParsedParameters;
  body?: unknown;
  /** The origin of a web page --cors-origin does not vouch for, when one sent the request (cors step). */
  foreignPage?: string;
  /** Key the rate limiter counted this request under. */
  rateLimitKey?: string;
  /** Who the request counts against: a verified credential or the client address (rate-limit step). */
  caller?: Caller;
  /** The window the answer reports in X-RateLimit-* (none on a 500; src/app/response-headers.ts). */
  rateLimit?: RateLimitState;
  /** A scenario's own rate-limit window for this request; the rateLimit step reports it instead. */
  rateLimitOverride?: RateLimitState;
  /** Problem slug of the answer, for the request log. */
  problem?: string;
  /** Who composed the answer when no stateful handler did: X-Shipmock-Source. */
  source?: 'prism' | 'prefer' | 'recorded' | 'replay' | 'upstream';
  /** Request rules of scenarios that acted on this request ("scenario/rule"): X-Shipmock-Scenario-Hit and the journal. */
  scenarioHits?: string[];
  /** Domain rules (carrier, label, quote, tracker) that fired while the handler ran: the journal. */
  domainHits?: string[];
  /** Scenario effects on the answer, applied by the responder just before it writes. */
  answerEffects?: AnswerEffects;
  /**
   * The body, when something before the mock already read the stream (an Express body parser
   * in front of a mounted mock): the body step takes it from here instead of the socket.
   */
  preReadBody?: Buffer;
  /** Waits real time outside the request's unit of work (Store's `UnitHandle.waitOutside`; unit-of-work.ts), for a scenario's latency. */
  waitOutsideUnit?: (ms: number) => Promise<void>;
  /** The contract's check of this request made before its unit of work (validate-request.ts, precheckRequest). */
  prechecked?: { operation: ContractOperation; body: Buffer; checked: CheckedRequest };
  /** The request body as read (operations with a request body), for the journal's exchange view. */
  requestBody?: Buffer;
  /** The request passed the contract's check (validate-request step). */
  requestChecked: boolean;
  /** Fields of the request the contract refused (a validation-error answer). */
  requestViolations?: Violation[];
  /** Fields of the answer the contract refused (response validation; 'warn' still answers it). */
  responseViolations?: Violation[];
  /** The body written, for the journal's exchange view (a reference, not a copy). */
  responsePayload?: Buffer | string;
}

/** Whether a path belongs to the control plane (/__admin), which is outside the API's rules. */
export function isAdminPath(pathname: string): boolean {
  return pathname === '/__admin' || pathname.startsWith('/__admin/');
}

/** The mock's own pages: `/` (redirects to the inspector) and the API reference under /docs. */
export function isMockPagePath(pathname: string): boolean {
  return pathname === '/' || pathname === '/docs' || pathname.startsWith('/docs/');
}

/** Paths outside the API's rules (not journaled, not rate limited): the control plane and the mock's pages. */
export function isOutsideApi(pathname: string): boolean {
  return isAdminPath(pathname) || isMockPagePath(pathname);
}

const STATE = Symbol('shipmock.request-state');
const MOUNT = Symbol('shipmock.mount');
type WithState = ApiRequest & { [STATE]?: RequestState; [MOUNT]?: MountContext };

export function requestState(req: ApiRequest): RequestState {
  const state = (req as WithState)[STATE];
  if (!state) throw new Error('request state read before the request-id step');
  return state;
}

/**
 * Starts a request's state with every field present, in one order, so every request's state has
 * the same object shape (V8 keeps the steps' property reads monomorphic on the hot path).
 */
export function initRequestState(req: ApiRequest, start: Pick<RequestState, 'requestId' | 'startedAt' | 'method' | 'url' | 'pathname' | 'search' | 'preReadBody'>): RequestState {
  const state: RequestState = {
    requestId: start.requestId,
    startedAt: start.startedAt,
    method: start.method,
    url: start.url,
    pathname: start.pathname,
    search: start.search,
    authorization: undefined,
    operation: undefined,
    principal: undefined,
    params: undefined,
    body: undefined,
    rateLimitKey: undefined,
    caller: undefined,
    rateLimit: undefined,
    rateLimitOverride: undefined,
    problem: undefined,
    source: undefined,
    scenarioHits: undefined,
    domainHits: undefined,
    answerEffects: undefined,
    preReadBody: start.preReadBody,
    waitOutsideUnit: undefined,
    prechecked: undefined,
    requestBody: undefined,
    requestChecked: false,
    requestViolations: undefined,
    responseViolations: undefined,
    responsePayload: undefined,
  };
  (req as WithState)[STATE] = state;
  return state;
}

/** The request's Authorization header, parsed on first use and kept for the later steps. */
export function authorizationOf(req: ApiRequest): Authorization {
  const state = requestState(req);
  return (state.authorization ??= parseAuthorization(req.headers.authorization));
}

/**
 * What an app the mock is mounted in knows about a request that the mock cannot see any more
 * (src/server/express-middleware.ts): the target before the mount path was cut off, and the body
 * when a body parser in front already read it off the stream.
 */
export interface MountContext {
  receivedUrl?: string;
  body?: Buffer;
}

export function setMountContext(req: ApiRequest, context: MountContext): void {
  (req as WithState)[MOUNT] = context;
}

export function mountContextOf(req: ApiRequest): MountContext | undefined {
  return (req as WithState)[MOUNT];
}
