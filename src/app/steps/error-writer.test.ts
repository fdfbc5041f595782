import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../errors/problem.js';
import { createLogger } from '../../logging/logger.js';
import type { Responder } from '../respond.js';
import { errorWriter } from './error-writer.js';

/** The error writer with a responder that records the problems it is given, and the log lines. */
function writer() {
  const problems: ProblemError[] = [];
  const lines: { level: number; msg: string; err?: { message: string } }[] = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(String(chunk))), done()) });
  const responder = { sendProblem: (_req: unknown, _res: unknown, problem: ProblemError) => void problems.push(problem) } as Responder;
  return { step: errorWriter({ logger: createLogger({ level: 'warn', format: 'json', destination: sink }), responder }), problems, lines };
}

function exchange() {
  const req = Object.assign(new IncomingMessage(new Socket()), { method: 'POST', url: '/v1/addresses', headers: {} });
  return { req, res: new ServerResponse(req) };
}

describe('errorWriter step', () => {
  it('writes a ProblemError as it says, logging nothing', () => {
    const { step, problems, lines } = writer();
    const { req, res } = exchange();
    const problem = new ProblemError('validation-error', { detail: 'name is required' });
    step(problem, req, res, () => {});
    expect(problems).toEqual([problem]);
    expect(lines).toEqual([]);
  });

  it('answers anything else as a 500 internal-error that hides the cause, and logs the cause with its request', () => {
    const { step, problems, lines } = writer();
    const { req, res } = exchange();
    step(new TypeError('cannot read id of undefined'), req, res, () => {});
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ slug: 'internal-error', status: 500, message: 'The mock failed unexpectedly; see its log' });
    expect(lines).toEqual([expect.objectContaining({ level: 50, msg: 'unexpected error', method: 'POST', url: '/v1/addresses', err: expect.objectContaining({ message: 'cannot read id of undefined' }) })]);
  });

  it('closes the connection when the answer had already started', () => {
    const { step, problems, lines } = writer();
    const { req, res } = exchange();
    let destroyed = false;
    Object.defineProperty(res, 'headersSent', { value: true });
    res.destroy = () => ((destroyed = true), res);
    step(new Error('late'), req, res, () => {});
    expect(destroyed).toBe(true);
    expect(problems).toEqual([]);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'error after the response started; closing the connection' });
  });
});
