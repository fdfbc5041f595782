import { ProblemError } from '../../errors/problem.js';
import type { ApiRequest, ApiResponse, ErrorStep, Next } from '../../http/types.js';
import type { Logger } from '../../logging/logger.js';
import type { Responder } from '../respond.js';

/**
 * Last step: every error becomes an RFC 7807 problem. A ProblemError is written as it says;
 * anything else is a bug in the mock, logged with its stack and answered as a 500 problem.
 * The control plane's Express app uses it as its error handler too.
 */
export function errorWriter(options: { logger: Logger; responder: Responder }): ErrorStep {
  // Four parameters: Express tells an error handler from a middleware by its arity.
  return function errorWriterStep(error: unknown, req: ApiRequest, res: ApiResponse, _next: Next) {
    if (res.headersSent) {
      options.logger.error({ err: error }, 'error after the response started; closing the connection');
      res.destroy();
      return;
    }
    if (error instanceof ProblemError) return options.responder.sendProblem(req, res, error);
    options.logger.error({ err: error, method: req.method, url: req.url }, 'unexpected error');
    options.responder.sendProblem(req, res, new ProblemError('internal-error', { detail: 'The mock failed unexpectedly; see its log' }));
  };
}
