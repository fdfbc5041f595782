import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTokenService } from '../../auth/tokens.js';
import { createClock } from '../../clock/clock.js';
import { loadCompiledContract } from '../../contract/compiled-contract.js';
import type { ProblemBody } from '../../errors/problem.js';
import { ProblemError } from '../../errors/problem.js';
import { requestState } from '../../http/request-state.js';
import { createLogger } from '../../logging/logger.js';
import type { PrismFallback } from '../../prism/prism-fallback.js';
import { createRateLimiter } from '../../rate-limit/rate-limiter.js';
import type { OperationResult } from '../../resources/shared/operation-handler.js';
import type { Responder } from '../respond.js';
import { parsePrefer, preferAnswer } from './prefer-answer.js';
import { requestId } from './request-id.js';

const { contract } = loadCompiledContract();
const started = requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 });
const clock = createClock({ mode: 'manual' });

/** The step for getAddress; what it handed the responder (a result or a problem), 'next', or the problem it threw. */
async function prefer(header: string | undefined) {
  const sent: { result?: OperationResult; problem?: ProblemError; body?: ProblemBody }[] = [];
  const responder = {
    sendResult: (_req: unknown, _res: unknown, result: OperationResult) => void sent.push({ result }),
    sendProblem: (_req: unknown, _res: unknown, problem: ProblemError, body?: ProblemBody) => void sent.push({ problem, body }),
  } as Responder;
  const prism = { answer: async () => ({ status: 200, body: { generated: true } }) } as unknown as PrismFallback;
  const step = preferAnswer({ contract, responder, limiter: createRateLimiter({ clock, limit: 10, windowMs: 60_000 }), tokens: createTokenService({ now: clock.now }), prism });
  const url = '/v1/addresses/9c5f70b8-3d0e-4bde-9e87-1f2a3b4c5d67';
  const req = Object.assign(new IncomingMessage(new Socket()), { method: 'GET', url, headers: header === undefined ? {} : { prefer: header } });
  const res = new ServerResponse(req);
  started(req, res, () => {});
  Object.assign(requestState(req), { operation: contract.byId.get('getAddress'), rateLimitKey: 'account:a1' });
  let went = false;
  await step(req, res, () => (went = true));
  return { went, sent: sent[0], state: requestState(req) };
}

describe('parsePrefer', () => {
  it('reads code, example and retry-after (quoted or not) and ignores preferences it does not know', () => {
    expect(parsePrefer('return=minimal, code=429, example="overdue", retry-after=5; q=1')).toEqual({ code: 429, example: 'overdue', retryAfter: 5 });
    expect(parsePrefer(['respond-async', 'code=503'])).toEqual({ code: 503 });
    expect(parsePrefer(undefined)).toEqual({});
  });

  it('says what is wrong with a status or a retry-after it cannot use', () => {
    expect(parsePrefer('code=42')).toEqual({ invalid: 'code=42 is not an HTTP status' });
    expect(parsePrefer('code=200, retry-after=soon')).toEqual({ invalid: 'retry-after=soon is not a number of seconds' });
  });
});

describe('preferAnswer step', () => {
  it('goes on without Prefer, or with preferences that choose no answer', async () => {
    expect((await prefer(undefined)).went).toBe(true);
    expect((await prefer('return=minimal')).went).toBe(true);
  });

  it("answers code=200 with the contract's example, marked as Prefer's answer", async () => {
    const { went, sent, state } = await prefer('code=200');
    expect(went).toBe(false);
    const node = (contract.document.paths['/v1/addresses/{address-id}'] as { get: { responses: Record<string, { content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> }> } }).get.responses['200'].content['application/json'];
    expect(sent.result).toEqual({ status: 200, body: node.example ?? Object.values(node.examples ?? {})[0].value, contentType: 'application/json' });
    expect(state.source).toBe('prefer');
  });

  it('answers code=429 with a rate-limited problem, its Retry-After and an empty window', async () => {
    const { sent, state } = await prefer('code=429, retry-after=7');
    expect(sent.problem).toMatchObject({ slug: 'rate-limited', status: 429, init: { headers: { 'Retry-After': '7' }, detail: 'Answered as asked by Prefer: code=429' } });
    expect(state.rateLimit).toMatchObject({ remaining: 0, resetSeconds: 7 });
  });

  it('refuses a status the operation does not declare, an unusable value and an unknown example, naming header/prefer', async () => {
    for (const [header, message] of [
      ['code=418', /^code=418 is not declared for getAddress \(declared: .*200.*\)$/],
      ['code=abc', /^code=abc is not an HTTP status$/],
      ['example=nope', /^example=nope is not an example of the 200 answer of getAddress/],
    ] as const) {
      const thrown = await prefer(header).then(() => undefined, (error: ProblemError) => error);
      expect(thrown).toBeInstanceOf(ProblemError);
      expect(thrown).toMatchObject({ slug: 'validation-error', init: { violations: [{ field: 'header/prefer', message: expect.stringMatching(message) }] } });
    }
  });
});
