import type { RequestState } from '../http/request-state.js';
import type { ApiResponse, Answer } from '../http/types.js';

/** Names the scenario rules that acted on an answer, so a tester sees why it looks the way it does. */
export const SCENARIO_HIT_HEADER = 'X-Shipmock-Scenario-Hit';

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

/**
 * The ONE place that decides which headers an API answer carries beyond its own (Location,
 * ETag, Retry-After, Allow…), from what the steps recorded in the request state: X-RateLimit-*
 * of the window the request counted in (spec, Limits: every answer but a 500), which scenario
 * rules acted on it, and who composed it when no stateful handler did. X-Request-Id and CORS
 * are set when the request arrives (request-id.ts, cors.ts), so even a dropped answer has them.
 */
export function setAnswerHeaders(res: ApiResponse, state: RequestState, answer: Answer): void {
  if (answer.headers) for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  if (state.source === 'recorded') {
    // A recorded answer keeps the X-RateLimit-* it was recorded with (if any): it is the real service's.
  } else if (state.rateLimit && answer.status !== 500) {
    res.setHeader('X-RateLimit-Limit', String(state.rateLimit.limit));
    res.setHeader('X-RateLimit-Remaining', String(state.rateLimit.remaining));
    res.setHeader('X-RateLimit-Reset', String(state.rateLimit.resetSeconds));
  } else {
    for (const name of RATE_LIMIT_HEADERS) res.removeHeader(name);
  }
  if (state.scenarioHits?.length) res.setHeader(SCENARIO_HIT_HEADER, state.scenarioHits.join(', '));
  if (state.source) res.setHeader('X-Shipmock-Source', state.source);
}
