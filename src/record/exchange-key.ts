import { createHash } from 'node:crypto';
import { redactBody, redactJson, redactQuery } from '../util/redact.js';

/** What decides which recorded answer a request gets. */
export interface KeyedRequest {
  method: string;
  /** The contract operation, when the path is one of the contract's. */
  operationId?: string;
  /** Path without the query. */
  path: string;
  /** The query as sent, without `?`. */
  query: string;
  contentType?: string;
  body: Buffer;
}

/**
 * The matching key of a request: operation, method, path (so its path parameters), the query's
 * parameters in sorted order, and the body (JSON compared by value: member order and layout do
 * not matter). Headers do not take part (a new token, another client's User-Agent or Accept
 * must not turn a recorded request into a miss). Secrets are shortened before the key is taken,
 * exactly as they are on disk (src/util/redact.ts), so a request that sends the real client
 * secret meets the recording that keeps only its first characters.
 *
 * @example requestKey({ method: 'GET', operationId: 'listCarriers', path: '/v1/carriers', query: 'b=2&a=1', body: Buffer.alloc(0) })
 * // 'listCarriers GET /v1/carriers?a=1&b=2 -'
 */
export function requestKey(request: KeyedRequest): string {
  const query = redactQuery(request.query)
    .split('&')
    .filter(Boolean)
    .sort()
    .join('&');
  return `${request.operationId ?? '-'} ${request.method.toUpperCase()} ${request.path}${query ? `?${query}` : ''} ${bodyDigest(request.body, request.contentType)}`;
}

function bodyDigest(body: Buffer, contentType: string | undefined): string {
  if (!body.length) return '-';
  const text = body.toString('utf8');
  let canonical: string;
  try {
    canonical = canonicalJson(redactJson(JSON.parse(text)));
  } catch {
    canonical = redactBody(text, contentType);
  }
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/** JSON with object members in sorted order, so `{"a":1,"b":2}` and `{ "b": 2, "a": 1 }` are one body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
