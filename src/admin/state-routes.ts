import { Router, type Request, type Response } from 'express';
import { ProblemError } from '../errors/problem.js';
import { adminInput } from './admin-contract.js';
import type { ControlPlane } from './control-plane.js';
import type { MockState } from './state.js';

/**
 *  POST /reset   everything, or one account ({accountId})
 *  GET  /state   export the whole state
 *  PUT  /state   import an exported state (all or nothing)
 */
export function stateRoutes(control: ControlPlane): Router {
  const router = Router();
  router.post('/reset', (_req: Request, res: Response) => {
    const body = adminInput(res).body as { accountId?: string } | undefined;
    control.reset(body?.accountId);
    res.status(204).end();
  });
  router.get('/state', (_req: Request, res: Response) => {
    res.json(control.state.export());
  });
  router.put('/state', (_req: Request, res: Response) => {
    try {
      control.state.import(adminInput(res).body as MockState);
    } catch (error) {
      throw new ProblemError('validation-error', {
        detail: `The state cannot be imported: ${(error as Error).message}`,
        violations: [{ field: 'body', message: (error as Error).message }],
      });
    }
    res.status(204).end();
  });
  return router;
}
