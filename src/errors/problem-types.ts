/**
 * The registry of problem types (RFC 7807 `type` URIs). Every problem the mock writes names one
 * of these slugs; a test checks each appears in contract/DECISIONS.md and the README error table.
 * Slugs are stable: clients may switch on them.
 */
export const PROBLEM_BASE_URI = 'https://shipmock.dev/problems/';

export const PROBLEM_TYPES = {
  'validation-error': { status: 400, title: 'Request validation failed' },
  'malformed-json': { status: 400, title: 'Malformed JSON body' },
  'rule-violation': { status: 400, title: 'Business rule violated' },
  'invalid-grant': { status: 400, title: 'Unsupported grant type' },
  'topic-not-allowed': { status: 400, title: 'Topic not allowed for this token' },
  'quote-expired': { status: 400, title: 'Shipping quote expired' },
  unauthorized: { status: 401, title: 'Authentication required' },
  'invalid-credentials': { status: 401, title: 'Invalid client credentials' },
  'invalid-token': { status: 401, title: 'Invalid or expired token' },
  forbidden: { status: 403, title: 'Forbidden for this token' },
  'control-plane-refused': { status: 403, title: 'Control-plane request refused' },
  'not-found': { status: 404, title: 'Resource not found' },
  'route-not-found': { status: 404, title: 'No such operation' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict with the current state' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'internal-error': { status: 500, title: 'Internal error' },
  'response-validation-failed': { status: 500, title: 'Response violates the contract' },
  'carrier-unavailable': { status: 500, title: 'Carrier unavailable' },
  'label-rendering-failed': { status: 500, title: 'Label rendering failed' },
  'not-implemented': { status: 501, title: 'Operation not implemented' },
  'replay-miss': { status: 501, title: 'No recorded answer for this request' },
  'store-unavailable': { status: 503, title: 'Store unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export function problemTypeUri(slug: ProblemSlug): string {
  return PROBLEM_BASE_URI + slug;
}
