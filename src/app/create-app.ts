import type { RequestListener } from 'node:http';
import { createContractGate, type ContractGate } from '../contract/gate.js';
import { createControlPlane, type ControlPlane } from '../admin/control-plane.js';
import { normalizeTopicAliases } from '../events/topic-aliases.js';
import { createPrismFallback } from '../prism/prism-fallback.js';
import { createOperationHandlers, createServices, type Services } from '../resources/index.js';
import { ProblemError } from '../errors/problem.js';
import { pipeline } from '../http/pipeline.js';
import { isOutsideApi, requestState } from '../http/request-state.js';
import { createResponder, resultViolations } from './respond.js';
import type { ApiRequest, ApiResponse } from '../http/types.js';
import { commitBeforeRespond } from './commit-before-respond.js';
import { allowedMethodsOf } from '../contract/route-matcher.js';
import type { MockRuntime } from '../runtime/runtime.js';
import { authenticate } from './steps/authenticate.js';
import { contractDocuments } from './steps/contract-documents.js';
import { cors, preflight } from './steps/cors.js';
import { refuseMockSent } from './steps/refuse-mock-sent.js';
import { sharedBatch } from './steps/shared-batch.js';
import { storeAvailable, storeUnavailable } from './steps/store-available.js';
import { dispatch } from './steps/dispatch.js';
import { errorWriter } from './steps/error-writer.js';
import { healthAnswer } from './steps/health-answer.js';
import { journalRecorder } from './steps/journal-recorder.js';
import { preferAnswer } from './steps/prefer-answer.js';
import { rateLimit } from './steps/rate-limit.js';
import { requestId } from './steps/request-id.js';
import { routeMatch } from './steps/route-match.js';
import { scenarioFaults, type ScenarioFaultsOptions } from './steps/scenario-faults.js';
import { validateRequest } from './steps/validate-request.js';

/** The control plane's liveness route (admin-router.ts), answered whatever the store's state. */
const isHealth = (url: string | undefined) => url === '/__admin/health' || Boolean(url?.startsWith('/__admin/health?'));

export interface MockApp {
  /** The request listener: give it to http.createServer (or supertest). */
  app: RequestListener;
  services: Services;
  /** Reset, state, clock, journal, scenarios, credentials: what /__admin and startMock's handles use. */
  control: ControlPlane;
  /** The API's contract gate: every request and answer of the API is checked here. */
  gate: ContractGate;
}

/**
 * Builds the HTTP app of one mock instance. The request pipeline, in order — this list is the
 * map of where any behaviour lives. Steps 1–3 run for every request. /__admin is an Express 5
 * app of its own, loaded on its first request (admin-app.ts). The API steps 5–13 run as one
 * composed pipeline straight on node:http (src/http: node's request and response plus the
 * request state): the API routes itself from the contract, and Express' per-request prototype
 * swap and router walk cost it over two thirds of its throughput (README, Performance). Every
 * request and answer is held to the contract by one gate (src/contract/gate.ts); every answer
 * is written by one responder (respond.ts), which decides its headers (response-headers.ts) and
 * applies the scenario effects on answers (answer-effects.ts) before a byte is written.
 *
 *  0. commit         with a durable store (--data): the request's writes commit as one
 *                      transaction before any response is written (commit-before-respond.ts);
 *                      a failed commit is answered 503 store-unavailable
 *     store            a SQLite store that cannot write refuses with 503 (store-available.ts),
 *                      a shared store's batch (shared-batch.ts); /__admin/health passes
 *  1. requestId        X-Request-Id, URL split once, request log line
 *     contract docs    GET /openapi.yaml, /openapi.json: the contract itself (not journaled)
 *  2. journal          records the request in the journal when its connection is done (not /__admin)
 *  3. cors             Access-Control-Allow-Origin on every API response: pages of this machine
 *                      and --cors-origin ones (/__admin: only --admin-origin, admin-access.ts)
 *     refuseMockSent   403 for requests a shipmock sent (Shipmock-Sender): no webhook loops
 *  4. health           a plain GET /__admin/health with a usable store: 200 without loading the
 *                      control plane's Express app (health-answer.ts); anything else goes on
 *     /__admin         control plane (contract/admin.yaml), outside the API's rules; Host,
 *                      Origin, admin key and no simple POSTs checked first (admin-access.ts)
 *  5. scenarioFaults   active scenarios' request rules: latency, injected problem, connection
 *                      reset, damaged body, own rate limit, forced token expiry, strict echo
 *  6. rateLimit        window of the verified credential, else of the client address (or the
 *                      scenario's); X-RateLimit-*, 429 + Retry-After; locks wrong client secrets
 *  7. preflight        OPTIONS answered from the contract's methods
 *  8. routeMatch       contract operation for method + path (404 / 405 problems)
 *  9. authenticate     token level vs the operation's security (401 / 403)
 * 10. preferAnswer     Prism-style one-off answers: Prefer: code=429 / example=name
 * 11. validateRequest  parameters and body against the contract (400 / 413 / 415)
 * 12. scenarioFaults   scenario rules that match body fields (same effects as step 5)
 * 13. dispatch         stateful handler, or the unhandled policy (Prism / 501);
 *                      with `stateful: false` every operation takes the unhandled policy;
 *                      every answer is checked against the contract before it is written;
 *                      domain scenario rules that fire in the handler go to the journal
 * 14. errorWriter      any error → application/problem+json
 */
export function createApp(runtime: MockRuntime): MockApp {
  const services = createServices({
    store: runtime.store,
    clock: runtime.clock,
    random: runtime.random,
    events: runtime.events,
    catalogue: runtime.catalogue,
    scenarios: runtime.scenarios,
    credentials: runtime.credentials,
    tokens: runtime.tokens,
    tokenLifetimes: runtime.options.tokenLifetimes,
    webhooks: runtime.webhooks,
    carrierInterceptors: runtime.carrierInterceptors,
  });
  const gate = createContractGate({ contract: runtime.contract, validators: runtime.validators, routes: runtime.routes });
  const responder = createResponder({ gate, logger: runtime.logger, responseValidation: runtime.options.responseValidation });
  const writeError = errorWriter({ logger: runtime.logger, responder });

  // An imported state's pending tracker steps resume (those due at its clock are recorded now).
  const control = createControlPlane(runtime, {
    onImported: () => services.trackers.resume(),
    inspection: { documents: services.documents, usage: services.usage },
  });
  const prism = createPrismFallback({
    contract: runtime.contract,
    seed: runtime.options.seed,
    conforms: (operation, result) => resultViolations(gate, operation.operationId, result).violations.length === 0,
  });
  const faults: Omit<ScenarioFaultsOptions, 'phase'> = {
    engine: runtime.scenarios,
    revocations: runtime.tokenRevocations,
    routes: runtime.routes,
    limiter: runtime.rateLimiter,
    callers: runtime.callers,
    now: runtime.clock.now,
  };

  const stateful = runtime.options.stateful;
  const front = pipeline([
    requestId({ logger: runtime.logger, now: runtime.clock.now }),
    contractDocuments({ document: runtime.contract.document, responder }),
    journalRecorder({ journal: runtime.journal, now: runtime.clock.now }),
    cors({ origins: runtime.options.raw.corsOrigins }),
    refuseMockSent(),
  ]);
  // The control plane's Express app loads on first use (see admin-app.ts).
  let admin: Promise<RequestListener> | undefined;
  const adminApp = () => (admin ??= import('../admin/admin-app.js').then((m) => m.createAdminApp(runtime, control, writeError)));
  const health = healthAnswer({ store: runtime.store });
  const api = pipeline([
    scenarioFaults({ ...faults, phase: 'request' }),
    rateLimit({ limiter: runtime.rateLimiter, callers: runtime.callers, lockout: runtime.loginLockout }),
    preflight({ allowedMethods: (path) => allowedMethodsOf(runtime.routes, path), responder }),
    routeMatch({ gate }),
    authenticate({
      tokens: runtime.tokens,
      credentials: runtime.credentials,
      // Contract-only mode keeps no accounts, so a token's signature and level are all there is to check.
      checkPrincipal: stateful ? services.accounts.checkPrincipal : undefined,
    }),
    preferAnswer({ contract: runtime.contract, responder, limiter: runtime.rateLimiter, tokens: runtime.tokens, prism }),
    validateRequest({ gate, bodyLimit: runtime.options.bodyLimit, normalizeInput: normalizeTopicAliases }),
    scenarioFaults({ ...faults, phase: 'body' }),
    dispatch({
      handlers: stateful ? createOperationHandlers(services) : {},
      unhandled: runtime.options.unhandled,
      prism,
      responder,
      scenarios: runtime.scenarios,
    }),
  ]);

  // Durable store only: the request's writes are committed before its response is written; a
  // failed commit is answered 503 store-unavailable instead.
  const commit = commitBeforeRespond({
    store: runtime.store,
    logger: runtime.logger,
    onFailure: (req, res, error) =>
      writeError(storeUnavailable((error as { reason?: string }).reason ?? error.message, runtime.store.shared ? 'the write was not confirmed and may not have been saved' : 'nothing was changed'), req as ApiRequest, res as ApiResponse, () => {}),
  });
  // Shared store only: everything after the front steps runs in one of this process's batches.
  const batch = runtime.store.shared ? sharedBatch({ shared: runtime.store.shared }) : undefined;
  // SQLite store only: requests are refused while its file cannot take writes.
  const available = storeAvailable({ store: runtime.store });
  const app = (req: ApiRequest, res: ApiResponse): void => {
    // Health writes nothing and must answer while the store fails: not held for a commit.
    if (!isHealth(req.url)) commit?.(req, res);
    const fail = (error: unknown) =>
      writeError(error ?? new ProblemError('internal-error', { detail: 'No pipeline step answered the request' }), req, res, () => {});
    const route = () => {
      const { pathname } = requestState(req);
      if (isOutsideApi(pathname)) {
        health(req, res, () => void adminApp().then((handle) => handle(req, res), fail));
        return;
      }
      api(req, res, fail);
    };
    front(req, res, (error?: unknown) => {
      if (error) return fail(error);
      // Health reads no state: it probes the store itself and says why it cannot be used.
      if (isHealth(req.url)) return route();
      const refused = available?.();
      if (refused) return fail(refused);
      if (!batch) return route();
      batch(req, res, (batchError?: unknown) => (batchError ? fail(batchError) : route()));
    });
  };
  return { app, services, control, gate };
}
