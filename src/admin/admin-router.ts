import { Router, type Request, type Response } from 'express';
import type { MockRuntime } from '../app/runtime.js';

/**
 * The control plane under /__admin: for tests and QA, not part of the Shipping Platform API.
 * Answers plain JSON and is not rate limited.
 */
export function createAdminRouter(_runtime: MockRuntime): Router {
  const router = Router();
  router.get('/health', (_req: Request, res: Response) => {
    res.json({ status: 'ok' });
  });
  return router;
}
