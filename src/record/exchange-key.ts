import { hash } from 'node:crypto';
import { headerOf, type Exchange } from '../recording/index.js';
import { canonicalBody, canonicalQuery, canonicalRedactedText, requestQuery } from '../scenarios/body-digest.js';
import type { RequestMatch } from '../scenarios/model.js';

/** A request as matching sees it. */
export interface KeyedRequest {
  method: string;
  /** Path without the query, as sent. */
  path: string;
  /** The query as sent, with or without `?`. */
  search: string;
  contentType?: string;
  body?: Buffer | string;
}

/**
 * The matching key of a request — the one a recorded scenario's rule is written for
 * (src/recording/to-scenario.ts): method, path (so its path parameters), the query's parameters
 * in any order, and the SHA-256 of the canonical body (JSON by value, secrets shortened first, so
 * a request that sends the real secret meets the recording that keeps only its first
 * characters). Headers do not take part: a new token must still get the recorded answer.
 *
 * @example requestKey({ method: 'get', path: '/v1/carriers', search: '?b=2&a=1' }) // 'GET /v1/carriers?a=1&b=2#'
 */
export function requestKey(request: KeyedRequest): string {
  return keyOf(request.method, request.path, request.search, bodyDigest(request.body, request.contentType));
}

/**
 * requestKey of a request whose body is given as a recording keeps it — text with its secrets
 * shortened (redactBody of the text as sent), or bytes — for one who has that at hand: its
 * canonical form starts from there instead of redacting the body again.
 *
 * @example redactedRequestKey({ method: 'POST', path: '/v1/x', search: '', contentType, body: redactBody(text, contentType) }) === requestKey({ …, body: text })
 */
export function redactedRequestKey(request: KeyedRequest): string {
  const { body } = request;
  const digest = typeof body === 'string' && body.length > 0 ? hash('sha256', canonicalRedactedText(body, request.contentType), 'hex') : bodyDigest(body, request.contentType);
  return keyOf(request.method, request.path, request.search, digest);
}

const keyOf = (method: string, path: string, search: string, digest: string) => `${method.toUpperCase()} ${path}?${search === '' || search === '?' ? '' : canonicalQuery(requestQuery(search))}#${digest}`;

/**
 * bodySha256 (src/scenarios/body-digest.ts: the digest a recorded rule's `match.bodySha256` holds)
 * in one call (crypto.hash), '' for an empty body: every request a recorder keeps or a replay
 * looks up is hashed here, and a Hash object per request cost more than the hashing.
 */
function bodyDigest(body: Buffer | string | undefined, contentType: string | undefined): string {
  const canonical = canonicalBody(body, contentType);
  return canonical === undefined ? '' : hash('sha256', canonical, 'hex');
}

/** The key of a recorded exchange's request (its URL's path and query; `url`: that URL parsed already). */
export function exchangeKey(exchange: Pick<Exchange, 'request'>, url = new URL(exchange.request.url)): string {
  return requestKey({ method: exchange.request.method, path: url.pathname, search: url.search, contentType: headerOf(exchange.request.headers, 'content-type'), body: exchange.request.body });
}

/**
 * The key a recorded rule answers: undefined for a rule that is not a recorded one (it names no
 * single method and literal path), which replay leaves alone.
 */
export function ruleKey(match: RequestMatch | undefined): string | undefined {
  if (!match || typeof match.method !== 'string' || typeof match.path !== 'string' || match.path.includes('*')) return undefined;
  if (match.headers || match.body || match.account) return undefined;
  return `${match.method.toUpperCase()} ${match.path}?${canonicalQuery(match.query ?? {})}#${match.bodySha256 ?? ''}`;
}
