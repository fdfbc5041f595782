import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../errors/problem.js';
import { createLogger } from '../../logging/logger.js';
import { refuseMockSent } from './refuse-mock-sent.js';
import { requestId } from './request-id.js';

const started = requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 });

/** Runs the step on a request carrying `headers`; returns whether it went on, or the problem it threw. */
function run(url: string, headers: Record<string, string>): ProblemError | 'next' {
  const req = Object.assign(new IncomingMessage(new Socket()), { method: 'POST', url, headers });
  const res = new ServerResponse(req);
  started(req, res, () => {});
  let outcome: ProblemError | 'next' = 'next';
  try {
    refuseMockSent()(req, res, () => {});
  } catch (error) {
    outcome = error as ProblemError;
  }
  return outcome;
}

describe('refuseMockSent step', () => {
  it('lets a request without Shipmock-Sender through', () => {
    expect(run('/v1/addresses', {})).toBe('next');
  });

  it('refuses one a shipmock sent: 403 forbidden on the API, naming the sender', () => {
    const problem = run('/v1/addresses', { 'shipmock-sender': 'shipmock/2.0 (pid 7)' });
    expect(problem).toBeInstanceOf(ProblemError);
    expect(problem).toMatchObject({ slug: 'forbidden', status: 403 });
    expect((problem as ProblemError).message).toContain('"shipmock/2.0 (pid 7)"');
  });

  it('refuses one to the control plane as control-plane-refused, and cuts a long sender to 64 characters', () => {
    const problem = run('/__admin/reset', { 'shipmock-sender': 'x'.repeat(500) }) as ProblemError;
    expect(problem).toMatchObject({ slug: 'control-plane-refused', status: 403 });
    expect(problem.message).toContain(`"${'x'.repeat(64)}"`);
    expect(problem.message).not.toContain('x'.repeat(65));
  });
});
