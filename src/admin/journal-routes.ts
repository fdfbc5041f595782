import { Router, type Request, type Response } from 'express';
import type { JournalFilter } from '../journal/journal.js';
import { adminInput, reply, replyEmpty } from './admin-contract.js';
import type { ControlPlane } from './control-plane.js';

/**
 *  GET    /journal               newest `limit` matching requests, oldest first
 *  DELETE /journal               clear (all, or ?account_id=)
 *  GET    /journal/retry-after   did the client wait Retry-After after each 429?
 */
export function journalRoutes(control: ControlPlane): Router {
  const router = Router();
  router.get('/journal', (_req: Request, res: Response) => {
    const filter = journalFilterOf(res);
    const items = control.journal.find(filter);
    reply(res, 200, { capacity: control.journal.capacity, size: control.journal.size, items });
  });
  router.delete('/journal', (_req: Request, res: Response) => {
    control.journal.clear(adminInput(res).params.query.account_id as string | undefined);
    replyEmpty(res, 204);
  });
  router.get('/journal/retry-after', (_req: Request, res: Response) => {
    reply(res, 200, control.journal.retryAfterReport({ accountId: adminInput(res).params.query.account_id as string | undefined }));
  });
  return router;
}

/**
 * The journal filter a request's query asks for (GET /journal, GET /journal.har: the same
 * parameters in contract/admin.yaml); `limit` falls back to `defaultLimit` when the query has none.
 */
export function journalFilterOf(res: Response, defaultLimit?: number): JournalFilter {
  const q = adminInput(res).params.query as Record<string, string | number | undefined>;
  return {
    accountId: q.account_id as string | undefined,
    path: q.path as string | undefined,
    method: q.method as string | undefined,
    status: q.status,
    operationId: q.operation_id as string | undefined,
    problem: q.problem as string | undefined,
    scenario: q.scenario as string | undefined,
    since: q.since as string | undefined,
    until: q.until as string | undefined,
    limit: (q.limit as number | undefined) ?? defaultLimit,
  };
}
