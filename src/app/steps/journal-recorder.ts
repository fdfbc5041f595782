import { PROBLEM_BASE_URI } from '../../errors/problem-types.js';
import type { Journal, JournalOutcome } from '../../journal/journal.js';
import { isOutsideApi, requestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';
import { exchangeInput, validationVerdict } from '../journal-exchange.js';

/**
 * Records every API request in the journal once its connection is done with it (answered,
 * reset or cut off). Control-plane requests (/__admin) are not recorded: the journal shows what
 * the client under test did, not what the test harness did.
 */
export function journalRecorder(options: { journal: Journal; now: () => number }) {
  return function journalRecorderStep(req: ApiRequest, res: ApiResponse, next: Next) {
    const state = requestState(req);
    if (isOutsideApi(state.pathname)) return next();
    const arrivedAt = options.now();
    res.once('close', () => {
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
        method: state.method,
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
          scenarios: state.scenarioHits || state.domainHits ? [...(state.scenarioHits ?? []), ...(state.domainHits ?? [])] : undefined,
        }),
        validation: validationVerdict(state, res.headersSent),
      }, exchangeInput(req, res, state));
    });
    next();
  };
}

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  return out;
}
