import { Router, type Request, type Response } from 'express';
import { ProblemError } from '../errors/problem.js';
import { adminInput, reply } from './admin-contract.js';
import type { ControlPlane } from './control-plane.js';

/**
 *  GET  /clock           the virtual clock
 *  PUT  /clock           {now}: jump to a date-time
 *  POST /clock/advance   {duration: 'PT4H'} or {ms}: move forward; due timers fire
 */
export function clockRoutes(control: ControlPlane): Router {
  const router = Router();
  router.get('/clock', (_req: Request, res: Response) => {
    reply(res, 200, control.clock.now());
  });
  router.put('/clock', (_req: Request, res: Response) => {
    const { now } = adminInput(res).body as { now: string };
    reply(res, 200, control.clock.set(now));
  });
  router.post('/clock/advance', (_req: Request, res: Response) => {
    const body = adminInput(res).body as { duration?: string; ms?: number };
    let view: ReturnType<ControlPlane['clock']['advance']>;
    try {
      view = control.clock.advance(body.duration ?? body.ms!);
    } catch (error) {
      const field = body.duration === undefined ? 'body/ms' : 'body/duration';
      throw new ProblemError('validation-error', { detail: (error as Error).message, violations: [{ field, message: 'must be an ISO 8601 duration such as PT4H' }] });
    }
    reply(res, 200, view);
  });
  return router;
}
