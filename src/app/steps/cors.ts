import { isOutsideApi, requestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';
import type { Responder } from '../respond.js';

// The X-Shipmock-* ones are QA diagnostics (README section qa), readable by a browser app under test too.
const EXPOSED =
  'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id, ETag, Location, X-Shipmock-Violations, X-Shipmock-Scenario-Hit, X-Shipmock-Source';

/**
 * CORS on every API response (spec, Limits: all responses carry Access-Control-Allow-Origin), so a
 * browser app can call the mock directly. Preflights are answered by the `preflight` step.
 * Not on the control plane (/__admin): it is for the user, not for any web page, and allows
 * only the origins given with --admin-origin (src/admin/admin-access.ts).
 */
export function cors(options: { origin?: string } = {}) {
  const origin = options.origin ?? '*';
  return function corsStep(req: ApiRequest, res: ApiResponse, next: Next) {
    if (isOutsideApi(requestState(req).pathname)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    next();
  };
}

/** Answers OPTIONS preflights with 204 and the methods the contract declares for the path. */
export function preflight(options: { allowedMethods: (path: string) => string[] | undefined; responder: Responder }) {
  return function preflightStep(req: ApiRequest, res: ApiResponse, next: Next) {
    const state = requestState(req);
    if (state.method !== 'OPTIONS') return next();
    const methods = options.allowedMethods(state.pathname);
    options.responder.send(req, res, {
      status: 204,
      headers: {
        'Access-Control-Allow-Methods': (methods ?? ['GET', 'POST', 'PUT', 'DELETE']).join(', '),
        'Access-Control-Allow-Headers': String(req.headers['access-control-request-headers'] ?? 'Authorization, Content-Type'),
        'Access-Control-Max-Age': '600',
      },
    });
  };
}
