import { ProblemError } from '../../errors/problem.js';
import { requestState, type RequestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';
import type { PrismFallback } from '../../prism/prism-fallback.js';
import type { ScenarioEngine } from '../../scenarios/engine.js';
import { handlerOf, type HandlerMap, type OperationResult } from '../../resources/shared/operation-handler.js';
import type { Responder } from '../respond.js';
import { storeUnavailable } from './store-available.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface DispatchOptions {
  handlers: HandlerMap;
  unhandled: 'prism' | 'error';
  prism: PrismFallback;
  responder: Responder;
  /** Domain rules that fire while a handler runs are recorded with the request (the journal). */
  scenarios: ScenarioEngine;
}

/**
 * Runs the operation: its stateful handler when a resource family registered one, otherwise
 * the configured policy for unhandled operations ('prism' answers from the contract, 'error'
 * answers 501). Either way the answer goes through the responder's contract check.
 */
export function dispatch(options: DispatchOptions) {
  return async function dispatchStep(req: ApiRequest, res: ApiResponse, _next: Next) {
    const state = requestState(req);
    const operation = state.operation!;
    const handler = handlerOf(options.handlers, operation.operationId);
    if (handler) return options.responder.sendResult(req, res, await runHandler(handler, state, options.scenarios));
    if (options.unhandled === 'error') {
      throw new ProblemError('not-implemented', { detail: `${operation.operationId} has no stateful handler and unhandled=error` });
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const result = await options.prism.answer(operation, { path: state.pathname, query: state.params!.query, headers, body: state.body });
    state.source = 'prism';
    options.responder.sendResult(req, res, result);
  };
}

/** A handler's wait outside its unit (a carrier's latency), failing as a scenario's latency does: 503. No closure for a store that waits in place. */
function handlerWait(unitWait: RequestState['waitOutsideUnit']): ((ms: number) => Promise<void>) | undefined {
  return unitWait && ((ms) => unitWait(ms).catch(() => Promise.reject(storeUnavailable('the request could not go on after its delay'))));
}

/**
 * Calls the handler with the checked request. Domain scenario effects (carrier, label, quote,
 * tracker outcome) that fire while it runs are kept with the request for its journal entry;
 * they only fire in requests that create something, and tracking them costs throughput, so
 * reads and idle scenarios skip it.
 */
async function runHandler(handler: NonNullable<ReturnType<typeof handlerOf>>, state: RequestState, scenarios: ScenarioEngine): Promise<OperationResult> {
  const context = {
    operation: state.operation!,
    principal: state.principal!,
    path: state.params!.path,
    query: state.params!.query,
    headers: state.params!.headers,
    body: state.body,
    requestId: state.requestId,
    foreignPage: state.foreignPage,
    waitOutside: SAFE_METHODS.has(state.method) ? undefined : handlerWait(state.waitOutsideUnit),
  };
  if (SAFE_METHODS.has(state.method) || !scenarios.hasDomainRules()) return handler(context);
  const { outcome, hits } = await scenarios.collectHits(() => handler(context));
  if (hits.length) state.domainHits = hits;
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}
