import express, { type Express } from 'express';
import { createAdminRouter } from '../admin/admin-router.js';
import { normalizeTopicAliases } from '../events/topic-aliases.js';
import { createPrismFallback } from '../prism/prism-fallback.js';
import { createOperationHandlers, createServices, type Services } from '../resources/index.js';
import { createResponder, resultViolations } from './respond.js';
import type { MockRuntime } from './runtime.js';
import { authenticate } from './steps/authenticate.js';
import { cors, preflight } from './steps/cors.js';
import { dispatch } from './steps/dispatch.js';
import { errorWriter } from './steps/error-writer.js';
import { rateLimit } from './steps/rate-limit.js';
import { requestId } from './steps/request-id.js';
import { routeMatch } from './steps/route-match.js';
import { validateRequest } from './steps/validate-request.js';

export interface MockApp {
  app: Express;
  services: Services;
}

/**
 * Builds the HTTP app of one mock instance. The request pipeline, in order — this list is the
 * map of where any behaviour lives:
 *
 *  1. requestId        X-Request-Id, URL split once, request log line
 *  2. cors             Access-Control-Allow-Origin on every response
 *  3. /__admin         control plane (health, …), outside the API's rules
 *  4. rateLimit        per-credential window, X-RateLimit-*, 429 + Retry-After
 *  5. preflight        OPTIONS answered from the contract's methods
 *  6. routeMatch       contract operation for method + path (404 / 405 problems)
 *  7. authenticate     token level vs the operation's security (401 / 403)
 *  8. validateRequest  parameters and body against the contract (400 / 413 / 415)
 *  9. dispatch         stateful handler, or the unhandled policy (Prism / 501);
 *                      with `stateful: false` every operation takes the unhandled policy;
 *                      every answer is checked against the contract before it is written
 * 10. errorWriter      any error → application/problem+json
 */
export function createApp(runtime: MockRuntime): MockApp {
  const services = createServices(runtime);
  const responder = createResponder(runtime);
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', false);

  app.use(requestId({ logger: runtime.logger, now: runtime.clock.now }));
  app.use(cors());
  app.use('/__admin', createAdminRouter(runtime));
  app.use(rateLimit({ limiter: runtime.rateLimiter, tokens: runtime.tokens }));
  app.use(preflight({ allowedMethods: (path) => allowedMethods(runtime, path) }));
  app.use(routeMatch({ routes: runtime.routes }));
  const stateful = runtime.options.stateful;
  app.use(
    authenticate({
      tokens: runtime.tokens,
      credentials: runtime.credentials,
      // Contract-only mode keeps no accounts, so a token's signature and level are all there is to check.
      checkPrincipal: stateful ? services.accounts.checkPrincipal : undefined,
    }),
  );
  app.use(validateRequest({ validators: runtime.validators, bodyLimit: runtime.options.bodyLimit, normalizeInput: normalizeTopicAliases }));
  app.use(
    dispatch({
      handlers: stateful ? createOperationHandlers(services) : {},
      unhandled: runtime.options.unhandled,
      prism: createPrismFallback({
        contract: runtime.contract,
        seed: runtime.options.seed,
        conforms: (operation, result) => resultViolations(runtime.validators, operation, result)?.length === 0,
      }),
      responder,
    }),
  );
  app.use(errorWriter({ logger: runtime.logger, responder }));
  return { app, services };
}

function allowedMethods(runtime: MockRuntime, path: string): string[] | undefined {
  const match = runtime.routes.match('OPTIONS', path);
  return match.kind === 'method-not-allowed' ? match.allowed : undefined;
}
