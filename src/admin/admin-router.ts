import { json, Router, type NextFunction, type Request, type Response } from 'express';
import type { MockRuntime } from '../app/runtime.js';
import { deliveryRoutes } from './delivery-routes.js';

/**
 * The control plane under /__admin: for tests and QA, not part of the Shipping Platform API.
 * Answers plain JSON and is not rate limited.
 */
export function createAdminRouter(runtime: MockRuntime): Router {
  const router = Router();
  router.get('/health', (_req: Request, res: Response) => {
    res.json({ status: 'ok' });
  });
  // An ADMIN bearer token for tests and QA: the API has no endpoint that issues one (spec,
  // Authentication lists Company, Account and Affiliate token endpoints only).
  router.post('/tokens', json(), (req: Request, res: Response) => {
    const level = (req.body as { level?: unknown } | undefined)?.level ?? 'ADMIN';
    if (level !== 'ADMIN') {
      res.status(400).json({ error: `level must be ADMIN (got ${JSON.stringify(level)}); other levels come from the API's token endpoints` });
      return;
    }
    const { token, expiresAt } = runtime.tokens.sign({ lvl: 'ADMIN', sub: 'shipmock-control-plane' }, runtime.options.tokenLifetimes.admin);
    res.json({ accessToken: token, expiresAt, tokenType: 'Bearer' });
  }, answerMalformedBody);
  // Webhook delivery log and redelivery (src/admin/delivery-routes.ts).
  router.use(deliveryRoutes(runtime));
  return router;
}

/** A control-plane body that is not JSON is the caller's mistake, never a 500. */
function answerMalformedBody(error: Error, _req: Request, res: Response, _next: NextFunction): void {
  res.status(400).json({ error: `the body is not valid JSON: ${error.message}` });
}
