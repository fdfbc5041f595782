import { isOutsideApi, requestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';
import type { Responder } from '../respond.js';

// The X-Shipmock-* ones are QA diagnostics (README section qa), readable by a browser app under test too.
const EXPOSED =
  'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id, ETag, Location, X-Shipmock-Violations, X-Shipmock-Scenario-Hit, X-Shipmock-Source';

/**
 * Which web pages may use the API from a browser (contract/DECISIONS.md, "Which web pages may
 * use the API"): pages served from this machine (`http(s)://localhost`, `*.localhost`,
 * `127.x.x.x`, `[::1]`, any port) and the origins named with --cors-origin; `*` among them
 * opens the API to every page (the behaviour before 2.x). A page is *vouched for* when it is
 * local or named: `*` lets every page read answers but vouches for none, so a page it lets in
 * still cannot point a webhook at this machine or a private network (src/events/webhook-target.ts).
 */
export interface CorsPolicy {
  /** Normalised --cors-origin entries (`*` kept as is). */
  readonly origins: readonly string[];
  /** A page of this origin may read the API's answers. */
  allows(origin: string): boolean;
  /** A page of this origin is the developer's own: local, or named with --cors-origin. */
  vouchesFor(origin: string): boolean;
}

/**
 * An origin as a browser serialises it (`scheme://host[:port]`, lower case, default port left
 * out), or `*`. Throws a RangeError naming the value otherwise (paths, `null`, other schemes).
 *
 * @example normalizeCorsOrigin('http://App.Example:80/') // 'http://app.example'
 */
export function normalizeCorsOrigin(value: string): string {
  const text = value.trim();
  if (text === '*') return '*';
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new RangeError(`cors origin ${JSON.stringify(value)} must be * or an origin such as http://localhost:3000 (scheme, host, optional port; no path)`);
  }
  return url.origin;
}

/** Pages served from this machine: localhost and its subdomains (RFC 6761), 127.0.0.0/8, [::1]. */
function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** @example createCorsPolicy(['https://app.example']).allows('https://evil.example') // false */
export function createCorsPolicy(origins: readonly string[] = []): CorsPolicy {
  const normalised = origins.map(normalizeCorsOrigin);
  const named = new Set(normalised.filter((origin) => origin !== '*'));
  const open = normalised.includes('*');
  const vouchesFor = (origin: string) => isLoopbackOrigin(origin) || named.has(origin);
  return { origins: normalised, vouchesFor, allows: (origin) => open || vouchesFor(origin) };
}

/**
 * The mock's own origin as this request reached it (scheme and Host, or the socket's address
 * when Host is missing or odd): the Access-Control-Allow-Origin a page that is not allowed gets,
 * so every answer still carries the header (spec, Limits) and the browser withholds the answer.
 */
function ownOrigin(req: ApiRequest): string {
  const scheme = (req.socket as { encrypted?: boolean } | undefined)?.encrypted ? 'https' : 'http';
  const host = req.headers.host;
  if (host && /^[A-Za-z0-9._~-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/.test(host)) return `${scheme}://${host.toLowerCase()}`;
  const address = req.socket?.localAddress ?? '127.0.0.1';
  return `${scheme}://${address.includes(':') ? `[${address}]` : address}${req.socket?.localPort ? `:${req.socket.localPort}` : ''}`;
}

/**
 * CORS on every API response (spec, Limits: all responses carry Access-Control-Allow-Origin):
 * a request without Origin (curl, SDKs, servers) gets `*`; a page the policy allows gets its own
 * origin back (or `*` with --cors-origin '*'); any other page gets the mock's own origin, so its
 * browser withholds the answer and fails the preflight of anything that needs a token. Answers
 * vary by Origin. A browser request from a page the policy does not vouch for is marked on the
 * request state (`foreignPage`) for the checks that protect the developer's network. Preflights
 * are answered by the `preflight` step. Not on the control plane (/__admin): it is for the user,
 * not for any web page, and allows only the origins given with --admin-origin (src/admin/admin-access.ts).
 */
export function cors(options: { origins?: readonly string[] } = {}) {
  const policy = createCorsPolicy(options.origins);
  const open = policy.origins.includes('*');
  return function corsStep(req: ApiRequest, res: ApiResponse, next: Next) {
    const state = requestState(req);
    if (isOutsideApi(state.pathname)) return next();
    const origin = req.headers.origin;
    let allowOrigin = '*';
    if (origin !== undefined) {
      allowOrigin = policy.allows(origin) ? (open ? '*' : origin) : ownOrigin(req);
      if (!policy.vouchesFor(origin)) state.foreignPage = origin;
    } else if (req.headers['sec-fetch-site'] === 'cross-site' || req.headers['sec-fetch-site'] === 'same-site') {
      // Fetch Metadata without Origin: a page of another site whose origin the browser withheld.
      state.foreignPage = 'an undisclosed origin';
    }
    res.setHeader('Access-Control-Allow-Origin', allowOrigin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    res.setHeader('Vary', 'Origin');
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
