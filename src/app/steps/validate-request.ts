import type { ContractGate, RequestCheckOptions } from '../../contract/gate.js';
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
    const checked = options.gate.checkRequest(operation, { pathParams: state.params!.path, query: queryObject(state.search), headers: req.headers, body }, checkOptions);
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
