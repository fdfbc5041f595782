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
import type { ApiRequest, ApiResponse, Step } from '../http/types.js';
import { createEndOfTurnWrites } from '../http/end-of-turn-writes.js';
import { allowedMethodsOf } from '../contract/route-matcher.js';
import type { MockRuntime } from '../runtime/runtime.js';
import { authenticate } from './steps/authenticate.js';
import { contractDocuments } from './steps/contract-documents.js';
import { cors, preflight } from './steps/cors.js';
import { refuseMockSent } from './steps/refuse-mock-sent.js';
import { dispatch } from './steps/dispatch.js';
import { errorWriter } from './steps/error-writer.js';
import { healthAnswer } from './steps/health-answer.js';
import { journalRecorder } from './steps/journal-recorder.js';
import { preferAnswer } from './steps/prefer-answer.js';
import { rateLimit } from './steps/rate-limit.js';
import { requestId } from './steps/request-id.js';
import { routeMatch } from './steps/route-match.js';
import { scenarioFaults, type ScenarioFaultsOptions } from './steps/scenario-faults.js';
import { unitOfWork } from './steps/unit-of-work.js';
import { unitLockOf } from './steps/unit-lock.js';
import { precheckRequest, validateRequest } from './steps/validate-request.js';

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
 * map of where any behaviour lives. Steps 1–4 run for every request. /__admin is an Express 5
 * app of its own, loaded on its first request (admin-app.ts). The API steps 6–14 run as one
 * composed pipeline straight on node:http (src/http: node's request and response plus the
 * request state): the API routes itself from the contract, and Express' per-request prototype
 * swap and router walk cost it over two thirds of its throughput (README, Performance). Every
 * request and answer is held to the contract by one gate (src/contract/gate.ts); every answer
 * is written by one responder (respond.ts), which decides its headers (response-headers.ts) and
 * applies the scenario effects on answers (answer-effects.ts) before a byte is written.
 *
 *  1. requestId        X-Request-Id, URL split once, request log line
 *     contract docs    GET /openapi.yaml, /openapi.json: the contract itself (not journaled)
 *  2. journal          records the request in the journal when its connection is done (not /__admin)
 *  3. cors             Access-Control-Allow-Origin on every API response: pages of this machine
 *                      and --cors-origin ones (/__admin: only --admin-origin, admin-access.ts)
 *     refuseMockSent   403 for requests a shipmock sent (Shipmock-Sender): no webhook loops
 *  4. unitOfWork       everything after it runs as ONE store.transaction (unit-of-work.ts): the
 *                      only way a change becomes durable or shared. With --data the answer is
 *                      held until its unit is committed (group commit: one per turn of the event
 *                      loop; a shared store's batch starts from what the others committed); a
 *                      store that refuses or fails answers 503 store-unavailable + Retry-After.
 *                      /__admin/health runs outside any unit (never held, answers in an outage).
 *                      A shared PostgreSQL store locks per unit (unit-lock.ts): the account of a
 *                      verified Account token, or everything (wide)
 *  5. health           a plain GET /__admin/health with a usable store: 200 without loading the
 *                      control plane's Express app (health-answer.ts); anything else goes on
 *     /__admin         control plane (contract/admin.yaml), outside the API's rules; Host,
 *                      Origin, admin key and no simple POSTs checked first (admin-access.ts)
 *     replay           `serve --replay` only: a recorded answer for a matching request, else
 *                      --on-miss: on to the mock, a 501 replay-miss, or the upstream (src/replay/replay-step.ts)
 *  6. scenarioFaults   active scenarios' request rules: latency, injected problem, connection
 *                      reset, damaged body, own rate limit, forced token expiry, strict echo
 *  7. rateLimit        window of the verified credential, else of the client address (or the
 *                      scenario's); X-RateLimit-*, 429 + Retry-After; locks wrong client secrets
 *  8. preflight        OPTIONS answered from the contract's methods
 *  9. routeMatch       contract operation for method + path (404 / 405 problems)
 * 10. authenticate     token level vs the operation's security (401 / 403)
 * 11. preferAnswer     Prism-style one-off answers: Prefer: code=429 / example=name
 * 12. validateRequest  parameters and body against the contract (400 / 413 / 415)
 * 13. scenarioFaults   scenario rules that match body fields (same effects as step 6)
 * 14. dispatch         stateful handler, or the unhandled policy (Prism / 501);
 *                      with `stateful: false` every operation takes the unhandled policy;
 *                      every answer is checked against the contract before it is written;
 *                      domain scenario rules that fire in the handler go to the journal
 * 15. errorWriter      any error → application/problem+json
 */
export function createApp(runtime: MockRuntime, extras: { replay?: Step } = {}): MockApp {
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
  // Memory store: the answers of a turn go out together at its end, one wake-up of the clients
  // per turn instead of one per answer (a durable store's group commit writes them there already).
  const holdWrites = runtime.store.durable ? undefined : createEndOfTurnWrites();

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
    responder,
  };

  const stateful = runtime.options.stateful;
  // The control plane's Express app loads on first use (see admin-app.ts).
  let admin: Promise<RequestListener> | undefined;
  const adminApp = () => (admin ??= import('../admin/admin-app.js').then((m) => m.createAdminApp(runtime, control, writeError)));
  const health = healthAnswer({ store: runtime.store });
  const api = pipeline([
    ...(extras.replay ? [extras.replay] : []),
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

  // /__admin/health writes nothing and must answer while the store fails: it runs outside any unit.
  // A shared PostgreSQL store locks per account: a request of one account's token locks only that account (unit-lock.ts).
  const lockOf = unitLockOf({ routes: runtime.routes, tokens: runtime.tokens, scenarios: runtime.scenarios, store: runtime.store });
  const unit = unitOfWork({
    store: runtime.store,
    logger: runtime.logger,
    writeError: (error, req, res) => writeError(error, req, res, () => {}),
    lockOf,
    bodyLimit: runtime.options.bodyLimit,
    outsideUnit: precheckRequest({ gate, normalizeInput: normalizeTopicAliases }),
  });
  const front = pipeline([
    requestId({ logger: runtime.logger, now: runtime.clock.now }),
    contractDocuments({ document: runtime.contract.document, responder }),
    journalRecorder({ journal: runtime.journal, now: runtime.clock.now }),
    cors({ origins: runtime.options.raw.corsOrigins }),
    refuseMockSent(),
    (req, res, next) => (isHealth(req.url) ? next() : unit(req, res, next)),
  ]);
  const app = (req: ApiRequest, res: ApiResponse): void => {
    // With the memory store, answers written in the turn their request arrived go out together
    // at its end (src/http/end-of-turn-writes.ts): one wake-up of the clients per turn.
    holdWrites?.(req.socket);
    const fail = (error: unknown) =>
      writeError(error ?? new ProblemError('internal-error', { detail: 'No pipeline step answered the request' }), req, res, () => {});
    front(req, res, (error?: unknown) => {
      if (error) return fail(error);
      const { pathname } = requestState(req);
      if (isOutsideApi(pathname)) {
        health(req, res, () => void adminApp().then((handle) => handle(req, res), fail));
        return;
      }
      api(req, res, fail);
    });
  };
  return { app, services, control, gate };
}
