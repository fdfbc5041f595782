import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** A pipeline step: an Express-style middleware, sync or async. */
export type PipelineStep = (req: Request, res: Response, next: NextFunction) => void | Promise<void>;

/**
 * Runs steps in order as ONE Express middleware. Express' router costs a few microseconds per
 * `app.use` layer on every request (path matching, URL re-parsing); the API pipeline is a fixed
 * list, so it needs none of that. A thrown error or a rejected promise goes to Express' error
 * handling, exactly as it would from a separate layer.
 *
 * @example app.use(pipeline([rateLimit(...), routeMatch(...), dispatch(...)]))
 */
export function pipeline(steps: PipelineStep[]): RequestHandler {
  return function pipelineHandler(req, res, done) {
    let index = 0;
    const next: NextFunction = (error?: unknown) => {
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
