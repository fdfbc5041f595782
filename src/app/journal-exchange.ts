import type { ApiRequest, ApiResponse } from '../http/types.js';
import type { RequestState } from '../http/request-state.js';
import type { ExchangeInput, JournalValidation } from '../journal/journal.js';

/**
 * What the journal copies of a request and its answer (src/journal/exchange-ring.ts): references,
 * no copies. The answer's headers are the header block node wrote (`_header`, a string it built
 * anyway) rather than `getHeaders()`, which would build an object per request.
 */
export function exchangeInput(req: ApiRequest, res: ApiResponse, state: RequestState): ExchangeInput {
  const block = (res as { _header?: unknown })._header;
  const responseHeaders = !res.headersSent ? undefined : typeof block === 'string' ? block : res.getHeaders();
  return {
    requestHeaders: req.rawHeaders,
    requestBody: state.requestBody,
    requestType: req.headers['content-type'],
    responseHeaders,
    responseType: responseHeaders === undefined ? undefined : (res.getHeader('content-type') as string | undefined),
    responseBody: state.responsePayload,
    requestViolations: state.requestViolations,
    responseViolations: state.responseViolations,
  };
}

/** The contract's verdict on a journaled request. */
export function validationVerdict(state: RequestState, answered: boolean): JournalValidation {
  if (state.requestViolations?.length) return 'invalid-request';
  if (state.responseViolations?.length) return 'invalid-response';
  return answered && state.requestChecked ? 'valid' : 'not-checked';
}
