import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from '../../errors/problem.js';
import type { Logger } from '../../logging/logger.js';
import type { Responder } from '../respond.js';

/**
 * Last step: every error becomes an RFC 7807 problem. A ProblemError is written as it says;
 * anything else is a bug in the mock, logged with its stack and answered as a 500 problem.
 */
export function errorWriter(options: { logger: Logger; responder: Responder }) {
  return function errorWriterStep(error: unknown, req: Request, res: Response, _next: NextFunction) {
    if (res.headersSent) {
      options.logger.error({ err: error }, 'error after the response started; closing the connection');
      res.destroy();
      return;
    }
    if (error instanceof ProblemError) return options.responder.sendProblem(req, res, error);
    // Express' own body/URL errors carry a status; anything else is ours.
    options.logger.error({ err: error, method: req.method, url: req.url }, 'unexpected error');
    options.responder.sendProblem(req, res, new ProblemError('internal-error', { detail: 'The mock failed unexpectedly; see its log' }));
  };
}
