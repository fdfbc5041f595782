import type { ApiRequest, ApiResponse, Next, Step } from './types.js';

/**
 * Runs steps in order as ONE step. The API pipeline is a fixed list, so it needs no router: a
 * router costs microseconds per layer on every request (path matching, URL re-parsing). A thrown
 * error or a rejected promise goes to `done(error)`, as `next(error)` would. A step that neither
 * calls `next` nor answers leaves the request hanging — each step either answers or calls next.
 *
 * @example const api = pipeline([rateLimit(...), routeMatch(...), dispatch(...)]); api(req, res, done);
 */
export function pipeline(steps: Step[]): (req: ApiRequest, res: ApiResponse, done: Next) => void {
  return function pipelineHandler(req, res, done) {
    let index = 0;
    const next: Next = (error?: unknown) => {
      if (error !== undefined && error !== null) return done(error);
      const step = steps[index++];
      if (!step) return done();
      try {
        const result = step(req, res, next);
        if (result && typeof result.then === 'function') result.catch(done);
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
