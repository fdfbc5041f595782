import type { ContractGate, RequestCheckOptions } from '../../contract/gate.js';
import type { ContractOperation } from '../../contract/load-contract.js';
import { drain, queryObject, readBody } from '../../http/read-request.js';
import { requestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';

const NO_BODY: Buffer = Buffer.alloc(0);

export interface ValidateRequestOptions {
  gate: ContractGate;
  bodyLimit: number;
  /** Accepted spellings the contract does not list (src/events/topic-aliases.ts). */
  normalizeInput?: RequestCheckOptions['normalize'];
}

/**
 * Validates parameters and body against the operation's schemas (the contract gate).
 * Bodies are read here, after routing and auth, so a 404 or 401 never reads an upload.
 * Every failing field is named in `properties.violations`; nothing reaches a handler unchecked.
 */
export function validateRequest(options: ValidateRequestOptions) {
  const checkOptions: RequestCheckOptions = { normalize: options.normalizeInput };
  return async function validateRequestStep(req: ApiRequest, _res: ApiResponse, next: Next) {
    const state = requestState(req);
    const operation = state.operation!;
    let body = NO_BODY;
    if (operation.requestBody) body = await readBody(req, options.bodyLimit, state.preReadBody);
    else if (!state.preReadBody) await drain(req);
    // Used once: a request that runs again (a read that had to lock) is checked again, its
    // handler may have changed the objects the check gave it.
    const prechecked = state.prechecked;
    state.prechecked = undefined;
    const checked = prechecked?.operation === operation && prechecked.body === body ? prechecked.checked : options.gate.checkRequest(operation, { pathParams: state.params!.path, query: queryObject(state.search), headers: req.headers, body }, checkOptions);
    state.requestBody = body;
    const problem = options.gate.requestProblem(checked);
    if (problem) {
      state.requestViolations = problem.init.violations;
      throw problem;
    }
    state.params = checked.params;
    state.body = checked.body;
    state.requestChecked = true;
    next();
  };
}

/**
 * The contract's check of a request, made before its unit of work starts (unit-of-work.ts,
 * `outsideUnit`) in a store that locks per account: it reads no state (the route, parameters,
 * headers and a body already read off the wire), so it need not hold a batch — on a shared
 * store the requests of the next batch are parsed and checked while the batch before them waits
 * for its round trips. validateRequest uses the result when it reaches the same operation and
 * body, in its place in the pipeline: what is answered, and in which order (429, 404, 401 before
 * 400), does not change. A request whose route or body is not known yet (no operation, a body
 * still on the wire) is checked inside its unit as before.
 */
export function precheckRequest(options: Omit<ValidateRequestOptions, 'bodyLimit'>) {
  const checkOptions: RequestCheckOptions = { normalize: options.normalizeInput };
  return function precheck(req: ApiRequest): void {
    const state = requestState(req);
    let operation: ContractOperation;
    let pathParams: Record<string, string>;
    try {
      ({ operation, pathParams } = options.gate.route(state.method, state.pathname));
    } catch {
      return; // 404 or 405: routeMatch answers it
    }
    const body = operation.requestBody ? state.preReadBody : NO_BODY;
    if (!body) return;
    const checked = options.gate.checkRequest(operation, { pathParams, query: queryObject(state.search), headers: req.headers, body }, checkOptions);
    state.prechecked = { operation, body, checked };
  };
}
