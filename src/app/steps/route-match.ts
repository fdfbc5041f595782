import type { NextFunction, Request, Response } from 'express';
import type { RouteMatcher } from '../../contract/route-matcher.js';
import { ProblemError } from '../../errors/problem.js';
import { requestState } from '../request-state.js';

/** Finds the contract operation for the request: unknown path → 404, known path, other method → 405. */
export function routeMatch(options: { routes: RouteMatcher }) {
  return function routeMatchStep(req: Request, _res: Response, next: NextFunction) {
    const state = requestState(req);
    const match = options.routes.match(req.method, state.pathname);
    if (match.kind === 'not-found') {
      throw new ProblemError('route-not-found', { detail: `No operation of the contract matches ${req.method} ${state.pathname}` });
    }
    if (match.kind === 'method-not-allowed') {
      throw new ProblemError('method-not-allowed', {
        detail: `${req.method} is not declared for ${state.pathname}; allowed: ${match.allowed.join(', ')}`,
        headers: { Allow: match.allowed.join(', ') },
      });
    }
    state.operation = match.operation;
    state.params = { path: match.pathParams, query: {}, headers: {} };
    next();
  };
}
