import type { IncomingHttpHeaders } from 'node:http';
import { ProblemError, type Violation } from '../errors/problem.js';
import { jsonShapeProblem } from './bounds.js';
import type { Contract, ContractOperation } from './load-contract.js';
import type { RouteMatch, RouteMatcher } from './route-matcher.js';
import type { ContractValidators, ParsedParameters } from './validators.js';

/**
 * The contract gate: the ONE place that holds a message to a contract — the API pipeline, the
 * control plane (contract/admin.yaml), the validating proxy and the `validation: strict`
 * scenario all check requests and answers here, and turn what they find into the same
 * violations and problems. Reading the bytes off a socket is the caller's business (src/http);
 * the gate gets them whole.
 *
 * @example
 * const gate = createContractGate({ contract, validators, routes });
 * const checked = gate.checkRequest(operation, { pathParams, query, headers, body });
 * const problem = gate.requestProblem(checked); // undefined when the request conforms
 */
export interface ContractGate {
  contract: Contract;
  validators: ContractValidators;
  routes: RouteMatcher;
  /** The operation of a method and path; a 404 or 405 problem when the contract has none. */
  route(method: string, pathname: string): Extract<RouteMatch, { kind: 'operation' }>;
  /** Checks a request's parameters and body. Never throws: what is wrong is in the result. */
  checkRequest(operation: ContractOperation, input: RequestInput, options?: RequestCheckOptions): CheckedRequest;
  /** The problem a checked request is refused with, or undefined when it conforms. */
  requestProblem(checked: CheckedRequest): ProblemError | undefined;
  /** Checks an answer against the operation's declared responses: [] when it conforms. */
  checkAnswer(operationId: string, answer: AnswerInput): AnswerCheck;
}

export interface RequestInput {
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** The whole body as received; empty when there was none. */
  body: Buffer;
}

export interface RequestCheckOptions {
  /** Shape limits for JSON bodies (bounds.ts); the API's defaults unless given. */
  jsonLimits?: Parameters<typeof jsonShapeProblem>[1];
  /**
   * Rewrites input before it is validated, for accepted spellings the contract does not list
   * (e.g. the SHIPMENT_BOOKING_EVENT topic alias; src/events/topic-aliases.ts).
   */
  normalize?: (operationId: string, part: 'query' | 'body', value: unknown) => unknown;
}

export interface CheckedRequest {
  operation: ContractOperation;
  /** Path, query and header parameters, coerced and with defaults applied. */
  params: ParsedParameters;
  /** The parsed JSON body, or the text of a body of another declared media type. */
  body?: unknown;
  mediaType?: string;
  violations: Violation[];
  /** Set when the body could not be read at all; `violations` then holds only what says why. */
  refusal?: { kind: 'unsupported-media-type'; mediaType: string } | { kind: 'unreadable-body'; problem: ProblemError };
}

export interface AnswerInput {
  status: number;
  /** Undefined for an answer without a body. */
  mediaType?: string;
  /** The parsed JSON body (undefined for raw bodies: only their media type is checked). */
  body?: unknown;
}

export interface AnswerCheck {
  violations: Violation[];
  /** The status or media type is not declared for the operation at all. */
  undeclared: boolean;
}

/** JSON media types: application/json and any application/…+json. */
export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || (mediaType.startsWith('application/') && mediaType.endsWith('+json'));
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | string[] | number | undefined): string {
  return String(Array.isArray(contentType) ? contentType[0] : (contentType ?? ''))
    .split(';')[0]
    .trim()
    .toLowerCase();
}

/**
 * Parses a JSON body: 400 `malformed-json` when it is not JSON, 400 `validation-error` when it
 * nests deeper than MAX_JSON_DEPTH or has an object with more than MAX_JSON_KEYS keys (checked
 * on the bytes first: such bodies hold the event loop in JSON.parse itself; bounds.ts).
 */
export function parseJsonBody(raw: Buffer, limits?: Parameters<typeof jsonShapeProblem>[1]): unknown {
  const shape = jsonShapeProblem(raw, limits);
  if (shape) throw new ProblemError('validation-error', { detail: `The body ${shape}`, violations: [{ field: 'body', message: shape }] });
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new ProblemError('malformed-json', {
      detail: `The body is not valid JSON: ${(error as Error).message}`,
      violations: [{ field: 'body', message: 'is not valid JSON' }],
    });
  }
}

/** The one sentence for a list of violations, in problem details. */
export function violationSummary(violations: Violation[]): string {
  return `${violations.length} field${violations.length === 1 ? '' : 's'} failed validation: ${violations.map((v) => `${v.field} ${v.message}`).join('; ')}`;
}

/** Header X-Shipmock-Violations: the violations as JSON, `[]` when clean (validation: strict, the proxy). */
export const VIOLATIONS_HEADER = 'X-Shipmock-Violations';
const MAX_VIOLATIONS_HEADER = 4096;

/**
 * A list of violations as a header value: one line of visible ASCII (anything else escaped as
 * \uXXXX, so the JSON stays valid), cut at 4 KiB with "..." (the log has them whole).
 */
export function violationsHeaderValue(violations: readonly object[]): string {
  const ascii = JSON.stringify(violations).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return ascii.length <= MAX_VIOLATIONS_HEADER ? ascii : `${ascii.slice(0, MAX_VIOLATIONS_HEADER - 3)}...`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** At most this many unstorable strings are named in one answer. */
const MAX_UNSTORABLE = 20;

/**
 * Strings no store can keep as given, refused at the edge for every store alike (the memory
 * store would keep them, SQLite and PostgreSQL would not: PostgreSQL's text cannot hold U+0000
 * at all, and an unpaired surrogate is not Unicode, so UTF-8 turns it into U+FFFD). Walks keys
 * and values; each violation names the field as a JSON pointer under `where`.
 */
function unstorableStrings(value: unknown, where: string, out: Violation[]): void {
  let found = 0;
  const named = (text: string) => text.replace(/\u0000/g, '\\u0000').replace(/~/g, '~0').replace(/\//g, '~1');
  const problem = (text: string) =>
    text.includes('\u0000') ? 'must not contain U+0000 (NUL): no store can keep it' : !LONE_SURROGATE.test(text) ? undefined : 'is not valid Unicode (an unpaired surrogate)';
  const walk = (node: unknown, field: string): void => {
    if (found >= MAX_UNSTORABLE) return;
    if (typeof node === 'string') {
      const message = problem(node);
      if (message) {
        found++;
        out.push({ field, message });
      }
      return;
    }
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, `${field}/${index}`));
      return;
    }
    for (const [key, item] of Object.entries(node)) {
      const message = problem(key);
      if (message && found < MAX_UNSTORABLE) {
        found++;
        out.push({ field: `${field}/${named(key)}`, message: `(the name) ${message}` });
      }
      walk(item, `${field}/${named(key)}`);
    }
  };
  walk(value, where);
}

export function createContractGate(parts: {
  contract: Contract;
  validators: ContractValidators;
  routes: RouteMatcher;
  /** The detail of a 404 (the control plane points at its own contract). */
  notFoundDetail?: (method: string, pathname: string) => string;
}): ContractGate {
  const { validators, routes } = parts;
  const notFoundDetail = parts.notFoundDetail ?? ((method, pathname) => `No operation of the contract matches ${method} ${pathname}`);

  function route(method: string, pathname: string) {
    const match = routes.match(method, pathname);
    if (match.kind === 'not-found') throw new ProblemError('route-not-found', { detail: notFoundDetail(method, pathname) });
    if (match.kind === 'method-not-allowed') {
      throw new ProblemError('method-not-allowed', {
        detail: `${method} is not declared for ${pathname}; allowed: ${match.allowed.join(', ')}`,
        headers: { Allow: match.allowed.join(', ') },
      });
    }
    return match;
  }

  function checkRequest(operation: ContractOperation, input: RequestInput, options: RequestCheckOptions = {}): CheckedRequest {
    const { normalize } = options;
    const forOperation = validators.forOperation(operation.operationId);
    const query = normalize ? (normalize(operation.operationId, 'query', input.query) as Record<string, unknown>) : input.query;
    const headers: Record<string, unknown> = {};
    for (const p of operation.parameters) if (p.in === 'header' && input.headers[p.name] !== undefined) headers[p.name] = input.headers[p.name];
    const params: ParsedParameters = { path: input.pathParams, query, headers };
    const checked: CheckedRequest = { operation, params, violations: forOperation.parameters(params) };
    unstorableStrings(input.pathParams, 'path', checked.violations);
    // Declared query parameters only: others never reach a handler or a store.
    for (const p of operation.parameters) if (p.in === 'query' && query[p.name] !== undefined) unstorableStrings(query[p.name], `query/${p.name}`, checked.violations);

    const spec = operation.requestBody;
    if (!spec) return checked;
    if (input.body.length === 0) {
      if (spec.required) checked.violations.push({ field: 'body', message: 'is required' });
      return checked;
    }
    const mediaType = mediaTypeOf(input.headers['content-type']);
    checked.mediaType = mediaType;
    if (isJsonMediaType(mediaType)) {
      let body: unknown;
      try {
        body = parseJsonBody(input.body, options.jsonLimits);
      } catch (error) {
        const problem = error as ProblemError;
        return { ...checked, violations: problem.init.violations ?? [], refusal: { kind: 'unreadable-body', problem } };
      }
      if (normalize) body = normalize(operation.operationId, 'body', body);
      checked.body = body;
      checked.violations.push(...(forOperation.body?.(body, input.body.length) ?? []));
      unstorableStrings(body, 'body', checked.violations);
    } else if (spec.mediaTypes.includes(mediaType)) {
      checked.body = input.body.toString('utf8');
      unstorableStrings(checked.body, 'body', checked.violations);
    } else {
      const message = `must be ${spec.mediaTypes.join(' or ')} (got ${mediaType || 'none'})`;
      return { ...checked, violations: [{ field: 'header/content-type', message }], refusal: { kind: 'unsupported-media-type', mediaType } };
    }
    return checked;
  }

  function requestProblem(checked: CheckedRequest): ProblemError | undefined {
    const { refusal, violations } = checked;
    if (refusal?.kind === 'unreadable-body') return refusal.problem;
    if (refusal?.kind === 'unsupported-media-type') {
      const accepted = checked.operation.requestBody?.mediaTypes.join(' or ') || 'application/json';
      return new ProblemError('unsupported-media-type', { detail: `Send the body as ${accepted} (got ${refusal.mediaType || 'no Content-Type'})` });
    }
    if (violations.length === 0) return undefined;
    // The token endpoints' grant type has its own problem (OAuth 2.0 unsupported_grant_type).
    const slug = violations.every((v) => v.field === 'body/grantType') ? 'invalid-grant' : 'validation-error';
    return new ProblemError(slug, { detail: violationSummary(violations), violations });
  }

  function checkAnswer(operationId: string, answer: AnswerInput): AnswerCheck {
    const found = validators.forOperation(operationId).response(answer.status, answer.mediaType, answer.body);
    if (found) return { violations: found, undeclared: false };
    return {
      violations: [{ field: 'status', message: `${answer.status} ${answer.mediaType ?? '(no body)'} is not declared for ${operationId}` }],
      undeclared: true,
    };
  }

  return { contract: parts.contract, validators, routes, route, checkRequest, requestProblem, checkAnswer };
}
