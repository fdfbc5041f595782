import type { ContractGate } from '../../contract/gate.js';
import { requestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';

/** Finds the contract operation for the request: unknown path → 404, known path, other method → 405. */
export function routeMatch(options: { gate: ContractGate }) {
  return function routeMatchStep(req: ApiRequest, _res: ApiResponse, next: Next) {
    const state = requestState(req);
    const match = options.gate.route(state.method, state.pathname);
    state.operation = match.operation;
    state.params = { path: match.pathParams, query: {}, headers: {} };
    next();
  };
}
