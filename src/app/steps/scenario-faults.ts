import { setTimeout as sleep } from 'node:timers/promises';
import type { RouteMatcher } from '../../contract/route-matcher.js';
import { ProblemError } from '../../errors/problem.js';
import { requestState, type RequestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';
import type { CallerIdentifier } from '../../rate-limit/callers.js';
import type { RateLimiter } from '../../rate-limit/rate-limiter.js';
import type { FiredEffect, ScenarioEngine } from '../../scenarios/engine.js';
import type { RequestFacts } from '../../scenarios/rule-matcher.js';
import { ScenarioError, toMs } from '../../scenarios/scenario-file.js';
import type { TokenRevocations } from '../../scenarios/token-revocations.js';
import { bodySha256, requestQuery } from '../../scenarios/body-digest.js';
import { injectedProblem } from '../injected-problem.js';
import { isRecordedAnswer, recordedAnswer } from '../recorded-answer.js';
import type { Responder } from '../respond.js';
import { callerOf } from './rate-limit.js';
import { storeUnavailable } from './store-available.js';

export const SCENARIO_HEADER = 'x-shipmock-scenario';

export interface ScenarioFaultsOptions {
  engine: ScenarioEngine;
  revocations: TokenRevocations;
  routes: RouteMatcher;
  limiter: RateLimiter;
  /** Who a request counts against: the verified credential, else the client address. */
  callers: CallerIdentifier;
  now: () => number;
  /** Writes a recorded answer (a respond effect with a body form). */
  responder: Responder;
  /**
   * `request`: before rate limiting, for rules that need no body (DESIGN order).
   * `body`: after request validation, for rules that match body fields.
   */
  phase: 'request' | 'body';
}

/**
 * Applies the active scenarios' request rules (and those named in X-Shipmock-Scenario) to the
 * request: latency, a problem answer, a connection reset, a rate limit of their own, a forced
 * token expiry. Effects on the answer (strict validation, a damaged or dropped answer) are
 * recorded in the request state and applied by the responder before it writes
 * (src/app/answer-effects.ts). Domain effects (carrier, tracker, webhook, label, quote) are
 * applied where those things happen, not here.
 */
export function scenarioFaults(options: ScenarioFaultsOptions) {
  const { engine, phase } = options;
  return async function scenarioFaultsStep(req: ApiRequest, res: ApiResponse, next: Next) {
    const names = scenarioNames(req.headers[SCENARIO_HEADER]);
    if (names.length === 0 && !engine.hasRequestRules(phase)) return next();
    const state = requestState(req);
    const key = callerOf(req, options.callers).key;
    if (phase === 'request') checkNames(names, options, state, key);
    const facts = factsOf(req, state, options);
    const fired = engine.evaluateRequest(facts, phase, { names, scope: facts.accountId ?? key });
    if (fired.length === 0) return next();

    state.scenarioHits = [...(state.scenarioHits ?? []), ...fired.map((f) => `${f.scenario}/${f.rule}`)];
    const latency = fired.reduce((sum, f) => sum + f.latencyMs, 0);
    // Outside the unit of work where there is one: a shared store's batch does not wait for it.
    // If the store fails around the wait, the unit fails with it and this answer is dropped.
    if (latency > 0) await (state.waitOutsideUnit ?? sleep)(latency).catch(() => Promise.reject(storeUnavailable('the request could not go on after its delay')));
    if (req.socket.destroyed) return;

    const terminal = fired.find((f) => f.effect.respond || f.effect.reset === true || f.effect.reset === 'before');
    if (terminal?.effect.reset) {
      req.socket.destroy();
      return;
    }
    if (terminal?.effect.respond && isRecordedAnswer(terminal.effect.respond)) {
      // Answered as recorded: as the real service did, whether or not that kept to the contract.
      state.source = 'recorded';
      return options.responder.sendRecorded(req, res, recordedAnswer(terminal.effect.respond));
    }
    if (terminal?.effect.respond) {
      throw injectedProblem(state, terminal.effect.respond, { limiter: options.limiter, key, detail: `Injected by scenario ${terminal.scenario} (${terminal.rule})` });
    }
    for (const f of fired) applyStanding(f, req, state, key, options);
    const strict = fired.some((f) => f.effect.validation === 'strict');
    const corrupt = fired.find((f) => f.effect.corrupt)?.effect.corrupt;
    const drop = fired.some((f) => f.effect.reset === 'after');
    if (strict || corrupt || drop) {
      const effects = (state.answerEffects ??= {});
      effects.strict ||= strict;
      effects.corrupt ??= corrupt;
      effects.drop ||= drop;
    }
    next();
  };
}

/** X-Shipmock-Scenario: one name or a comma-separated list. */
export function scenarioNames(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const text = Array.isArray(header) ? header.join(',') : header;
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function checkNames(names: string[], options: ScenarioFaultsOptions, state: RequestState, key: string): void {
  for (const name of names) {
    try {
      options.engine.resolve(name);
    } catch (error) {
      const message = error instanceof ScenarioError ? error.message : String(error);
      const problem = injectedProblem(state, { status: 400, problem: 'validation-error', detail: `X-Shipmock-Scenario: ${message}` }, { limiter: options.limiter, key, detail: '' });
      throw new ProblemError('validation-error', { ...problem.init, violations: [{ field: `header/${SCENARIO_HEADER}`, message: `names no usable scenario (${name})` }] });
    }
  }
}

/** What is known before routing: the operation is looked up here, the account read from the token or path. */
function factsOf(req: ApiRequest, state: RequestState, options: ScenarioFaultsOptions): RequestFacts {
  const caller = callerOf(req, options.callers);
  let operationId = state.operation?.operationId;
  let pathParams = state.params?.path;
  if (!state.operation) {
    const match = options.routes.match(state.method, state.pathname);
    if (match.kind === 'operation') {
      operationId = match.operation.operationId;
      pathParams = match.pathParams;
      // Known this early, so an answer a scenario injects here is journaled with its operation
      // (routeMatch sets it again, with the parameters, when the request goes on).
      state.operation = match.operation;
    }
  }
  return {
    method: state.method,
    path: state.pathname,
    operationId,
    // Only verified facts scope a rule: a forged token naming another account must not fire or
    // use up that account's rules (issue 12: nothing a stranger sends is counted against a victim).
    accountId: state.principal?.accountId ?? caller.claims?.aid ?? (caller.verified ? (pathParams?.['account-id'] as string | undefined) : undefined),
    headers: req.headers,
    body: state.body,
    query: requestQuery(state.search),
    bodySha256: memo(() => bodySha256(state.requestBody, req.headers['content-type'])),
  };
}

/** Effects that change how the rest of the pipeline treats the request. */
function applyStanding(fired: FiredEffect, req: ApiRequest, state: RequestState, key: string, options: ScenarioFaultsOptions): void {
  const { effect } = fired;
  if (effect.rateLimit && fired.limiter && !state.rateLimitOverride) {
    state.rateLimitOverride = state.method === 'OPTIONS' ? fired.limiter.peek(key) : fired.limiter.consume(key);
  }
  if (effect.expireToken) {
    // A verified token only: expiring by a forged token's claims would expire the real tokens
    // of the account it names.
    const { token, claims } = callerOf(req, options.callers);
    if (!token || !claims) return;
    const olderThan = typeof effect.expireToken === 'object' ? toMs(effect.expireToken.olderThan) : undefined;
    const issuedAt = typeof claims.iat === 'number' ? claims.iat * 1000 : undefined;
    // The authenticate step then refuses the token like any expired one (401 invalid-token).
    if (olderThan === undefined || (issuedAt !== undefined && options.now() - issuedAt >= olderThan)) options.revocations.expire(token, claims);
  }
}

function memo<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}
