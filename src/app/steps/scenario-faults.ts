import type { NextFunction, Request, Response } from 'express';
import type { RouteMatcher } from '../../contract/route-matcher.js';
import type { ContractValidators } from '../../contract/validators.js';
import { ProblemError, type Violation } from '../../errors/problem.js';
import type { CallerIdentifier } from '../../rate-limit/callers.js';
import type { RateLimiter } from '../../rate-limit/rate-limiter.js';
import type { FiredEffect, ScenarioEngine } from '../../scenarios/engine.js';
import { injectedProblem } from '../../scenarios/injected-problem.js';
import { tapResponse, type TapDecision } from '../../scenarios/response-tap.js';
import type { RequestFacts } from '../../scenarios/rule-matcher.js';
import { ScenarioError, toMs } from '../../scenarios/scenario-file.js';
import type { TokenRevocations } from '../../scenarios/token-revocations.js';
import { requestState, type RequestState } from '../request-state.js';
import { callerOf } from './rate-limit.js';

export const SCENARIO_HEADER = 'x-shipmock-scenario';
/** Names the scenario rules that acted on an answer, so a tester sees why it looks the way it does. */
export const SCENARIO_HIT_HEADER = 'X-Shipmock-Scenario-Hit';
/** validation: strict — the request's and the answer's contract violations, as JSON. */
export const VIOLATIONS_HEADER = 'X-Shipmock-Violations';
const MAX_VIOLATIONS_HEADER = 4096;

export interface ScenarioFaultsOptions {
  engine: ScenarioEngine;
  revocations: TokenRevocations;
  routes: RouteMatcher;
  limiter: RateLimiter;
  /** Who a request counts against: the verified credential, else the client address. */
  callers: CallerIdentifier;
  validators: ContractValidators;
  now: () => number;
  /**
   * `request`: before rate limiting, for rules that need no body (DESIGN order).
   * `body`: after request validation, for rules that match body fields.
   */
  phase: 'request' | 'body';
}

/**
 * Applies the active scenarios' request rules (and those named in X-Shipmock-Scenario) to the
 * request: latency, a problem answer, a connection reset, a damaged body, a rate limit of their
 * own, a forced token expiry, strict validation echo. Domain effects (carrier, tracker, webhook,
 * label, quote) are applied where those things happen, not here.
 */
export function scenarioFaults(options: ScenarioFaultsOptions) {
  const { engine, phase } = options;
  return async function scenarioFaultsStep(req: Request, res: Response, next: NextFunction) {
    const names = scenarioNames(req.headers[SCENARIO_HEADER]);
    if (names.length === 0 && !engine.hasRequestRules(phase)) return next();
    const state = requestState(req);
    const key = callerOf(req, options.callers).key;
    if (phase === 'request') checkNames(names, options, res, key);
    const facts = factsOf(req, state, options);
    const fired = engine.evaluateRequest(facts, phase, { names, scope: facts.accountId ?? key });
    if (fired.length === 0) return next();

    const hits = fired.map((f) => `${f.scenario}/${f.rule}`);
    state.scenarioHits = [...(state.scenarioHits ?? []), ...hits];
    res.setHeader(SCENARIO_HIT_HEADER, state.scenarioHits.join(', '));
    const latency = fired.reduce((sum, f) => sum + f.latencyMs, 0);
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    if (req.socket.destroyed) return;

    const terminal = fired.find((f) => f.effect.respond || f.effect.reset === true || f.effect.reset === 'before');
    if (terminal?.effect.reset) {
      req.socket.destroy();
      return;
    }
    if (terminal?.effect.respond) {
      throw injectedProblem(res, terminal.effect.respond, { limiter: options.limiter, key, detail: `Injected by scenario ${terminal.scenario} (${terminal.rule})` });
    }
    for (const f of fired) applyStanding(f, req, state, key, options);
    const strict = fired.some((f) => f.effect.validation === 'strict');
    const corrupt = fired.find((f) => f.effect.corrupt)?.effect.corrupt;
    const dropAnswer = fired.some((f) => f.effect.reset === 'after');
    if (strict || corrupt || dropAnswer) {
      tapResponse(res, (status, body) => {
        if (dropAnswer) return { kind: 'destroy' };
        let answer: { status: number; body?: Buffer } = { status, body };
        if (strict) answer = strictAnswer(req, res, options.validators, answer);
        return damage(answer, corrupt);
      });
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

function checkNames(names: string[], options: ScenarioFaultsOptions, res: Response, key: string): void {
  for (const name of names) {
    try {
      options.engine.resolve(name);
    } catch (error) {
      const message = error instanceof ScenarioError ? error.message : String(error);
      const problem = injectedProblem(res, { status: 400, problem: 'validation-error', detail: `X-Shipmock-Scenario: ${message}` }, { limiter: options.limiter, key, detail: '' });
      throw new ProblemError('validation-error', { ...problem.init, violations: [{ field: `header/${SCENARIO_HEADER}`, message: `names no usable scenario (${name})` }] });
    }
  }
}

/** What is known before routing: the operation is looked up here, the account read from the token or path. */
function factsOf(req: Request, state: RequestState, options: ScenarioFaultsOptions): RequestFacts {
  const caller = callerOf(req, options.callers);
  let operationId = state.operation?.operationId;
  let pathParams = state.params?.path;
  if (!state.operation) {
    const match = options.routes.match(req.method, state.pathname);
    if (match.kind === 'operation') {
      operationId = match.operation.operationId;
      pathParams = match.pathParams;
      // Known this early, so an answer a scenario injects here is journaled with its operation
      // (routeMatch sets it again, with the parameters, when the request goes on).
      state.operation = match.operation;
    }
  }
  return {
    method: req.method,
    path: state.pathname,
    operationId,
    // Only verified facts scope a rule: a forged token naming another account must not fire or
    // use up that account's rules (issue 12: nothing a stranger sends is counted against a victim).
    accountId: state.principal?.accountId ?? caller.claims?.aid ?? (caller.verified ? (pathParams?.['account-id'] as string | undefined) : undefined),
    headers: req.headers,
    body: state.body,
  };
}

function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header || !/^bearer\s/i.test(header)) return undefined;
  return header.slice(header.indexOf(' ') + 1).trim();
}

/** Effects that change how the rest of the pipeline treats the request. */
function applyStanding(fired: FiredEffect, req: Request, state: RequestState, key: string, options: ScenarioFaultsOptions): void {
  const { effect } = fired;
  if (effect.rateLimit && fired.limiter && !state.rateLimitOverride) {
    state.rateLimitOverride = req.method === 'OPTIONS' ? fired.limiter.peek(key) : fired.limiter.consume(key);
  }
  if (effect.expireToken) {
    // A verified token only: expiring by a forged token's claims would expire the real tokens
    // of the account it names.
    const token = bearerToken(req);
    const claims = callerOf(req, options.callers).claims;
    if (!token || !claims) return;
    const olderThan = typeof effect.expireToken === 'object' ? toMs(effect.expireToken.olderThan) : undefined;
    const issuedAt = typeof claims.iat === 'number' ? claims.iat * 1000 : undefined;
    // The authenticate step then refuses the token like any expired one (401 invalid-token).
    if (olderThan === undefined || (issuedAt !== undefined && options.now() - issuedAt >= olderThan)) options.revocations.expire(token, claims);
  }
}

/** A strict answer: violations echoed; an answer that breaks the contract becomes a 500. */
function strictAnswer(req: Request, res: Response, validators: ContractValidators, answer: { status: number; body?: Buffer }) {
  const state = requestState(req);
  const contentType = String(res.getHeader('content-type') ?? '').split(';')[0].trim();
  let parsed: unknown;
  if (answer.body && contentType.endsWith('json')) {
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
  }
  const violations: (Violation & { in: 'request' | 'response' })[] = [];
  if (contentType === 'application/problem+json' && answer.status === 400 && parsed && typeof parsed === 'object') {
    const found = (parsed as { properties?: { violations?: Violation[] } }).properties?.violations ?? [];
    for (const v of found) violations.push({ in: 'request', ...v });
  }
  const operation = state.operation;
  if (operation && !contentType.endsWith('problem+json')) {
    const isJson = contentType.endsWith('json');
    const found = validators.forOperation(operation.operationId).response(answer.status, answer.body === undefined ? undefined : contentType || undefined, isJson ? parsed : undefined);
    const list = found ?? [{ field: 'status', message: `${answer.status} ${contentType} is not declared for ${operation.operationId}` }];
    for (const v of list) violations.push({ in: 'response', ...v });
  }
  res.setHeader(VIOLATIONS_HEADER, truncateHeader(JSON.stringify(violations)));
  if (!violations.some((v) => v.in === 'response')) return answer;
  const problem = new ProblemError('response-validation-failed', {
    detail: `${operation!.operationId} answered outside the contract (validation: strict)`,
    violations: violations.filter((v) => v.in === 'response').map(({ field, message }) => ({ field, message })),
  }).toBody(requestState(req).url);
  res.setHeader('Content-Type', 'application/problem+json');
  for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) res.removeHeader(name);
  return { status: 500, body: Buffer.from(JSON.stringify(problem)) };
}

function truncateHeader(text: string): string {
  // Header values must stay ASCII-safe and small; JSON.stringify escapes nothing above 0x7f.
  const ascii = text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return ascii.length <= MAX_VIOLATIONS_HEADER ? ascii : `${ascii.slice(0, MAX_VIOLATIONS_HEADER - 3)}...`;
}

function damage(answer: { status: number; body?: Buffer }, corrupt: 'truncate' | 'malformed' | undefined): TapDecision {
  if (!corrupt) return { kind: 'write', ...answer };
  // An empty answer has nothing to cut: the connection drops instead.
  if (!answer.body || answer.body.length === 0) return { kind: 'destroy' };
  if (corrupt === 'truncate') return { kind: 'truncate', status: answer.status, body: answer.body };
  const cut = answer.body.subarray(0, Math.max(1, Math.floor(answer.body.length / 2)));
  return { kind: 'write', status: answer.status, body: Buffer.concat([cut, Buffer.from('\u0000<!-- corrupted by shipmock -->')]) };
}
