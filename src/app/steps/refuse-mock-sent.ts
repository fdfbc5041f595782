import { ProblemError } from '../../errors/problem.js';
import { SENDER_HEADER } from '../../events/sender-marker.js';
import { isOutsideApi, requestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';

const HEADER = SENDER_HEADER.toLowerCase();

/**
 * Refuses every request a shipmock sent (it carries Shipmock-Sender, src/events/sender-marker.ts):
 * a webhook pointed back at a mock, directly or through a tunnel or another host, would otherwise
 * reach the control plane from loopback or loop events through the API. 403
 * `control-plane-refused` on /__admin, `forbidden` on the API; nothing changes.
 */
export function refuseMockSent() {
  return function refuseMockSentStep(req: ApiRequest, _res: ApiResponse, next: Next) {
    const sender = req.headers[HEADER];
    if (sender === undefined) return next();
    const outside = isOutsideApi(requestState(req).pathname);
    const shown = JSON.stringify(String(sender).slice(0, 64));
    throw new ProblemError(outside ? 'control-plane-refused' : 'forbidden', {
      detail: `This request was sent by a shipmock (${SENDER_HEADER}: ${shown}): a webhook pointed back at a mock, directly or through another host. A mock answers no request a mock sent; point the webhook at your receiver`,
    });
  };
}
