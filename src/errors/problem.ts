import { PROBLEM_TYPES, problemTypeUri, type ProblemSlug } from './problem-types.js';

/** One failing field: `field` is a JSON-pointer-like location such as `body/company/name`. */
export interface Violation {
  field: string;
  message: string;
}

/** The RFC 7807 body the mock writes (see components/schemas/Problem in the contract). */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  properties?: { violations?: Violation[]; [key: string]: unknown };
  /** Only in the v0 carrier-definition 404 body (spec: "status is a string" there). */
  errors?: { status: string; code?: string; title: string; detail?: string }[];
}

export interface ProblemInit {
  detail?: string;
  violations?: Violation[];
  /** Extra context under `properties`. */
  properties?: Record<string, unknown>;
  /** Extra response headers (e.g. Retry-After, Allow). */
  headers?: Record<string, string>;
  /** Overrides the registered status (e.g. a scenario's 503 with the internal-error type). */
  status?: number;
  title?: string;
  /** The v0 `errors` array (carrier-definition 404s); the body is then checked against ProblemV0. */
  errors?: ProblemBody['errors'];
}

/**
 * The one error type of the mock. Anything that should reach the client as a problem is thrown
 * (or returned) as a ProblemError; everything else becomes a logged 500 `internal-error`.
 *
 * @example
 * throw new ProblemError('not-found', { detail: 'No address 3f1c… in this account' });
 */
export class ProblemError extends Error {
  readonly slug: ProblemSlug;
  readonly status: number;
  readonly init: ProblemInit;

  constructor(slug: ProblemSlug, init: ProblemInit = {}) {
    super(init.detail ?? PROBLEM_TYPES[slug].title);
    this.name = 'ProblemError';
    this.slug = slug;
    this.status = init.status ?? PROBLEM_TYPES[slug].status;
    this.init = init;
  }

  toBody(instance: string): ProblemBody {
    const body: ProblemBody = {
      type: problemTypeUri(this.slug),
      title: this.init.title ?? PROBLEM_TYPES[this.slug].title,
      status: this.status,
    };
    // Within the contract's bounds (Problem: detail 4000, instance 8192, violations 100): a
    // detail or path built from a client's input must not turn a 400 into an invalid response.
    if (this.init.detail) body.detail = clip(this.init.detail, 4000);
    body.instance = asUriReference(instance).slice(0, 8192);
    const properties = { ...this.init.properties };
    if (this.init.violations?.length) properties.violations = this.init.violations.slice(0, MAX_VIOLATIONS);
    if (Object.keys(properties).length) body.properties = properties;
    if (this.init.errors?.length) body.errors = this.init.errors;
    return body;
  }
}

/** Cuts text to `max` characters, marking the cut with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}

/** Violations a problem lists at most (the contract's Problem properties.violations maxItems). */
export const MAX_VIOLATIONS = 100;

/** Shorthand for a 400 `rule-violation` naming the rule and the field it concerns. */
export function ruleViolation(field: string, message: string): ProblemError {
  return new ProblemError('rule-violation', { detail: message, violations: [{ field, message }] });
}

/** Shorthand for the 404 that isolation demands: never say whether the id exists elsewhere. */
export function notFound(what: string, id: string): ProblemError {
  return new ProblemError('not-found', { detail: `${what} ${id} does not exist in this account` });
}

/**
 * The request target as a valid RFC 3986 URI reference (the contract's `instance` format): a
 * client may send `%zz`, a cut-off `%E0%A4%A`, spaces or raw UTF-8, which stay readable but are
 * percent-encoded (and `#`, `[`, `]`, which a request target cannot hold), so a refusal of bad input is never itself an answer that breaks the contract.
 *
 * @example asUriReference('/v1/addresses?x=%zz') // '/v1/addresses?x=%25zz'
 */
export function asUriReference(target: string): string {
  return target.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?@!$&'()*+,;=%]/gu, (char) => {
    try {
      return encodeURIComponent(char);
    } catch {
      return '%EF%BF%BD'; // a lone surrogate: U+FFFD
    }
  });
}
