import { PROBLEM_TYPES, type ProblemSlug } from '../errors/problem-types.js';
import { ProblemError } from '../errors/problem.js';
import type { RequestState } from '../http/request-state.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import type { RespondEffect } from '../scenarios/model.js';

/** The problem type an injected answer of a status carries when none is named. */
const PREFERRED: Record<number, ProblemSlug> = {
  400: 'validation-error',
  401: 'invalid-token',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  429: 'rate-limited',
  500: 'internal-error',
  501: 'not-implemented',
  // A scenario's 503 is an outage of the service, not of the mock's shared store (store-unavailable).
  503: 'internal-error',
};

/** A registered slug for the status, or undefined when none has it. */
export function defaultProblemSlug(status: number): ProblemSlug | undefined {
  if (PREFERRED[status]) return PREFERRED[status];
  return (Object.keys(PROBLEM_TYPES) as ProblemSlug[]).find((slug) => PROBLEM_TYPES[slug].status === status);
}

/** What an injected problem says: the same fields as a scenario's respond effect. */
export type InjectedAnswer = RespondEffect;

/**
 * Builds the problem of an injected answer (scenario `respond`, Prism-style `Prefer: code=`)
 * and records the rate-limit window its headers report, agreeing with it: a 429 also carries
 * Retry-After, and its X-RateLimit-Reset equals Retry-After with nothing remaining (RFC 6585 §4).
 *
 * @example throw injectedProblem(state, { status: 429, retryAfter: 5 }, { limiter, key, detail: 'burst' })
 */
export function injectedProblem(state: RequestState, answer: InjectedAnswer, context: { limiter: RateLimiter; key: string; detail: string }): ProblemError {
  const slug = (answer.problem as ProblemSlug | undefined) ?? defaultProblemSlug(answer.status) ?? (answer.status >= 500 ? 'internal-error' : 'rule-violation');
  const headers: Record<string, string> = { ...answer.headers };
  const retryAfter = answer.retryAfter ?? (answer.status === 429 || answer.status === 503 ? numberHeader(headers, 'retry-after') ?? 1 : undefined);
  if (retryAfter !== undefined) setHeader(headers, 'Retry-After', String(retryAfter));
  // The answer's window: nothing left on a 429, reset when Retry-After says (none at all on a
  // 500, which response-headers.ts leaves out).
  const window = context.limiter.peek(context.key);
  state.rateLimit = answer.status === 429 ? { ...window, remaining: 0, resetSeconds: retryAfter ?? window.resetSeconds } : window;
  return new ProblemError(slug, {
    status: answer.status,
    title: answer.title ?? (PROBLEM_TYPES[slug].status === answer.status ? undefined : statusTitle(answer.status)),
    detail: answer.detail ?? context.detail,
    headers,
  });
}

function numberHeader(headers: Record<string, string>, name: string): number | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : Number(headers[key]);
  return value !== undefined && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function setHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
  headers[name] = value;
}

const STATUS_TITLES: Record<number, string> = {
  409: 'Conflict',
  422: 'Unprocessable content',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

function statusTitle(status: number): string {
  return STATUS_TITLES[status] ?? (status >= 500 ? 'Server error' : 'Client error');
}
