import { Router, type Request, type Response } from 'express';
import type { MockRuntime } from '../runtime/runtime.js';
import { allowedMethodsOf } from '../contract/route-matcher.js';
import { deliveryRoutes } from './delivery-routes.js';
import { driftRoutes } from './drift-routes.js';
import { adminAccess } from './admin-access.js';
import { adminContractCheck, loadAdminContract, reply } from './admin-contract.js';
import { clockRoutes } from './clock-routes.js';
import type { ControlPlane } from './control-plane.js';
import { credentialRoutes } from './credential-routes.js';
import { inspectorRoutes } from './inspector-routes.js';
import { journalRoutes } from './journal-routes.js';
import { recordingRoutes } from './recording-routes.js';
import { scenarioRoutes } from './scenario-routes.js';
import { stateRoutes } from './state-routes.js';

/**
 * The control plane under /__admin: for tests and QA, not part of the Shipping Platform API.
 * Answers plain JSON and is not rate limited. Every route is described in contract/admin.yaml
 * (a test checks both ways) and held to it by adminContractCheck.
 */
export function createAdminRouter(runtime: MockRuntime, control: ControlPlane): Router {
  const router = Router();
  const admin = loadAdminContract();
  const { raw, bodyLimit } = runtime.options;
  // For the user, not for web pages: Host, Origin, key or loopback, no simple POSTs (README, Control plane security).
  router.use(
    adminAccess({
      adminKey: raw.adminKey,
      origins: raw.adminOrigins,
      hosts: raw.adminHosts,
      allowedMethods: (path) => allowedMethodsOf(admin.gate.routes, path),
    }),
  );
  router.use(adminContractCheck({ admin, responseValidation: runtime.options.responseValidation, logger: runtime.logger, bodyLimit }));
  // Probes the store (a SQLite file that cannot take writes, a shared database away) and says why.
  router.get('/health', async (_req: Request, res: Response) => {
    const reason = await runtime.store.probe?.();
    if (reason === undefined) return reply(res, 200, { status: 'ok' });
    res.set('Retry-After', '1');
    reply(res, 503, { status: 'store-unavailable', reason });
  });
  // A shared store's batch counters (src/store/lock-stats.ts): what the bench reads (docs/scaling.md).
  router.get('/store/batches', (_req: Request, res: Response) => {
    const stats = runtime.store.batchStats?.();
    reply(res, 200, { shared: stats !== undefined, ...(stats ?? { batches: 0, byLock: { wide: 0, account: 0, process: 0 }, members: 0, lockWaitMs: 0, lockHoldMs: 0, serialMs: 0, conflicts: 0 }) });
  });
  // An ADMIN bearer token for tests and QA: the API has no endpoint that issues one (spec,
  // Authentication lists Company, Account and Affiliate token endpoints only).
  // Its body (`{ level: 'ADMIN' }` or none) was held to AdminTokenRequest by adminContractCheck.
  router.post('/tokens', (_req: Request, res: Response) => {
    const { token, expiresAt } = runtime.tokens.sign({ lvl: 'ADMIN', sub: 'shipmock-control-plane' }, runtime.options.tokenLifetimes.admin);
    reply(res, 200, { accessToken: token, expiresAt, tokenType: 'Bearer' });
  });
  // Webhook delivery log and redelivery (src/admin/delivery-routes.ts).
  router.use(deliveryRoutes(runtime));
  // Reset, state, clock, journal, credentials, scenarios (QA control plane, src/admin/control-plane.ts).
  router.use(stateRoutes(control));
  router.use(clockRoutes(control));
  router.use(journalRoutes(control));
  router.use(recordingRoutes(control));
  // After journalRoutes: /journal/retry-after is not an entry number.
  router.use(inspectorRoutes(control, runtime.logger));
  router.use(credentialRoutes(control));
  router.use(scenarioRoutes(control, runtime.routes));
  // What `shipmock compare` found (src/admin/drift-routes.ts).
  router.use(driftRoutes(runtime));
  return router;
}
