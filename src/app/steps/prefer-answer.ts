import type { TokenService } from '../../auth/tokens.js';
import { followRefs } from '../../contract/json-pointer.js';
import type { Contract, ContractOperation, OpenApiDocument } from '../../contract/load-contract.js';
import { ProblemError } from '../../errors/problem.js';
import type { PrismFallback } from '../../prism/prism-fallback.js';
import type { RateLimiter } from '../../rate-limit/rate-limiter.js';
import { requestState } from '../../http/request-state.js';
import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';
import { injectedProblem } from '../injected-problem.js';
import type { Responder } from '../respond.js';

/** The Prism-style preferences shipmock honours (RFC 7240 Prefer header). */
export interface Preferences {
  code?: number;
  example?: string;
  /** Seconds for the Retry-After of a preferred 429 or 503. */
  retryAfter?: number;
}

/**
 * Parses `Prefer: code=429, example=overdue, retry-after=5` (RFC 7240: comma-separated
 * preferences, values optionally quoted). Preferences shipmock does not know (return=minimal,
 * respond-async, …) are ignored, as the RFC asks.
 */
export function parsePrefer(header: string | string[] | undefined): Preferences | { invalid: string } {
  const out: Preferences = {};
  if (header === undefined) return out;
  const text = Array.isArray(header) ? header.join(',') : header;
  for (const part of text.split(',')) {
    const [pair] = part.split(';');
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    const name = pair.slice(0, eq).trim().toLowerCase();
    const value = pair.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (name === 'code') {
      if (!/^[1-5]\d\d$/.test(value)) return { invalid: `code=${value} is not an HTTP status` };
      out.code = Number(value);
    } else if (name === 'example') {
      out.example = value;
    } else if (name === 'retry-after') {
      if (!/^\d{1,5}$/.test(value)) return { invalid: `retry-after=${value} is not a number of seconds` };
      out.retryAfter = Number(value);
    }
  }
  return out;
}

/**
 * One-off answers in Prism's convention, for testing how a client handles an answer it cannot
 * easily provoke: `Prefer: code=N` answers the operation's declared response N — for a problem
 * status a problem of the matching registered type with consistent headers (429: Retry-After
 * and X-RateLimit-*), for a success the contract's example — and `Prefer: example=name` picks a
 * named example. Runs after authentication (the caller must be allowed to call the operation)
 * and before validation (the body does not matter for a canned answer). Nothing changes state.
 */
export function preferAnswer(options: { contract: Contract; responder: Responder; limiter: RateLimiter; tokens: TokenService; prism: PrismFallback }) {
  return async function preferAnswerStep(req: ApiRequest, res: ApiResponse, next: Next) {
    if (req.headers.prefer === undefined) return next();
    const prefs = parsePrefer(req.headers.prefer);
    if ('invalid' in prefs) throw preferViolation(prefs.invalid);
    if (prefs.code === undefined && prefs.example === undefined) return next();
    const state = requestState(req);
    const operation = state.operation!;
    const declared = [...operation.responses.keys()].sort((a, b) => a - b);
    const status = prefs.code ?? declared.find((s) => s >= 200 && s < 300) ?? declared[0];
    if (!operation.responses.has(status)) {
      throw preferViolation(`code=${status} is not declared for ${operation.operationId} (declared: ${declared.join(', ')})`);
    }
    state.source = 'prefer';
    // Set by the rate-limit step, which always runs before this one.
    const key = state.rateLimitKey!;
    const response = resolve<ResponseNode>(options.contract.document, operationNode(options.contract.document, operation).responses?.[String(status)]);
    const [mediaType, media] = Object.entries(response?.content ?? {})[0] ?? [];
    const example = media ? pickExample(options.contract.document, media, prefs.example) : undefined;

    if (prefs.example !== undefined && example === undefined) {
      const names = Object.keys(media?.examples ?? {});
      throw preferViolation(`example=${prefs.example} is not an example of the ${status} answer of ${operation.operationId} (examples: ${names.join(', ') || 'none'})`);
    }
    if (status >= 400 && example === undefined) {
      const problem = injectedProblem(state, { status, retryAfter: prefs.retryAfter }, { limiter: options.limiter, key, detail: `Answered as asked by Prefer: code=${status}` });
      const body = problem.toBody(state.url);
      // The v0 carrier-definition 404 carries `errors` with a string status (spec, Errors).
      if (refersTo(options.contract.document, media?.schema, 'ProblemV0')) body.errors = [{ status: String(status), title: body.title, detail: body.detail }];
      return options.responder.sendProblem(req, res, problem, body);
    }
    if (!mediaType) return options.responder.sendResult(req, res, { status });
    if (example !== undefined) {
      const json = mediaType.endsWith('json');
      return options.responder.sendResult(
        req,
        res,
        json ? { status, body: example, contentType: mediaType } : { status, raw: typeof example === 'string' ? example : JSON.stringify(example), contentType: mediaType },
      );
    }
    // No example in the contract: Prism generates one from the schema (seeded).
    const result = await options.prism.answer(operation, { path: state.pathname, query: {}, headers: { prefer: `code=${status}` }, body: undefined });
    options.responder.sendResult(req, res, result);
  };
}

function preferViolation(message: string): ProblemError {
  return new ProblemError('validation-error', { detail: `Prefer: ${message}`, violations: [{ field: 'header/prefer', message }] });
}

/** The parts of an OpenAPI response and media type object that a preferred answer reads. */
interface MediaNode {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, unknown>;
}
interface ResponseNode {
  content?: Record<string, MediaNode>;
}

function operationNode(document: OpenApiDocument, operation: ContractOperation): { responses?: Record<string, unknown> } {
  const item = resolve<Record<string, unknown>>(document, document.paths?.[operation.path]);
  return resolve<{ responses?: Record<string, unknown> }>(document, item?.[operation.method]) ?? {};
}

/**
 * Follows local $refs ('#/components/…') and reads the node as the shape the caller expects;
 * undefined where a reference leads nowhere (the contract loader reports those).
 */
function resolve<T>(document: OpenApiDocument, node: unknown): T | undefined {
  try {
    return followRefs(document, node).value as T | undefined;
  } catch {
    return undefined;
  }
}

function pickExample(document: OpenApiDocument, media: MediaNode, name: string | undefined): unknown {
  const examples = media.examples ?? {};
  if (name !== undefined) {
    const found = resolve<{ value?: unknown }>(document, examples[name]);
    return found === undefined ? undefined : found.value;
  }
  if (media.example !== undefined) return media.example;
  const first = Object.values(examples)[0];
  return first === undefined ? undefined : resolve<{ value?: unknown }>(document, first)?.value;
}

function refersTo(document: OpenApiDocument, schema: unknown, name: string): boolean {
  let node = schema as { $ref?: unknown } | undefined;
  for (let hops = 0; node && hops < 20; hops++) {
    if (typeof node.$ref !== 'string') return false;
    if (node.$ref === `#/components/schemas/${name}`) return true;
    node = resolve<{ $ref?: unknown }>(document, { $ref: node.$ref });
  }
  return false;
}
