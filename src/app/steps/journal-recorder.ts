import type { NextFunction, Request, Response } from 'express';
import { PROBLEM_BASE_URI } from '../../errors/problem-types.js';
import type { Journal, JournalOutcome } from '../../journal/journal.js';
import type { ScenarioEngine } from '../../scenarios/engine.js';
import { isAdminPath, requestState } from '../request-state.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Records every API request in the journal once its connection is done with it (answered,
 * reset or cut off). Control-plane requests (/__admin) are not recorded: the journal shows what
 * the client under test did, not what the test harness did.
 */
export function journalRecorder(options: { journal: Journal; now: () => number; scenarios: ScenarioEngine }) {
  return function journalRecorderStep(req: Request, res: Response, next: NextFunction) {
    const state = requestState(req);
    if (isAdminPath(state.pathname)) return next();
    const arrivedAt = options.now();
    let closed = false;
    res.once('close', () => {
      closed = true;
      const outcome: JournalOutcome = res.writableFinished ? 'completed' : res.headersSent ? 'truncated' : 'reset';
      const principal = state.principal;
      // Verified claims only (the rate-limit step identified the caller): a forged token naming an
      // account must not put requests in that account's journal.
      const claims = principal ? undefined : state.caller?.claims;
      const retryAfter = Number(res.getHeader('retry-after'));
      const query = state.search.toString();
      options.journal.record({
        requestId: state.requestId,
        at: new Date(arrivedAt).toISOString(),
        method: req.method,
        path: state.pathname,
        ...(query ? { query } : {}),
        ...(res.headersSent ? { status: res.statusCode } : {}),
        outcome,
        latencyMs: Math.round((performance.now() - state.startedAt) * 10) / 10,
        ...defined({
          operationId: state.operation?.operationId,
          accountId: principal?.accountId ?? claims?.aid ?? (state.caller?.verified ? (state.params?.path?.['account-id'] as string | undefined) : undefined),
          companyId: principal?.companyId ?? claims?.cid,
          credential: state.rateLimitKey,
          problem: state.problem?.startsWith(PROBLEM_BASE_URI) ? state.problem.slice(PROBLEM_BASE_URI.length) : state.problem,
          retryAfter: res.headersSent && Number.isFinite(retryAfter) ? retryAfter : undefined,
          scenarios: state.scenarioHits ? [...state.scenarioHits] : undefined,
        }),
      });
    });
    // Domain scenario effects (carrier, label, quote, tracker outcome) fired while handling this
    // request are journaled with it. They only fire in requests that create something, and
    // tracking (AsyncLocalStorage) costs throughput, so reads and idle scenarios skip it.
    if (SAFE_METHODS.has(req.method) || !options.scenarios.hasDomainRules()) return next();
    // Work the request set off that outlives it (a webhook retried later) is not the request's.
    options.scenarios.runInRequest((hit) => !closed && (state.scenarioHits ??= []).push(hit), () => next());
  };
}

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  return out;
}
