import { canonicalQuery } from './body-digest.js';
import { globTest, regexTest, type TextTest } from './linear-pattern.js';
import { SCENARIO_BOUNDS } from './scenario-file.js';
import type { DomainFacts, RequestMatch } from './model.js';

/** What the request pipeline knows about a request when it asks the scenarios. */
export interface RequestFacts {
  method: string;
  path: string;
  operationId?: string;
  accountId?: string;
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  /** The query (src/scenarios/body-digest.ts requestQuery); absent counts as none. */
  query?: Record<string, string | string[]>;
  /** SHA-256 of the canonical request body (body-digest.ts bodySha256), computed on first call. */
  bodySha256?: () => string | undefined;
}

/** A compiled `match` block: one predicate per request, one per domain moment. */
export interface CompiledMatch {
  request(facts: RequestFacts): boolean;
  domain(facts: DomainFacts): boolean;
  /** True when the rule needs the request body (evaluated after validation). */
  needsBody: boolean;
}

const list = (value: string | string[] | undefined): string[] | undefined => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);

/**
 * A compiled pattern runs only on texts up to SCENARIO_BOUNDS.maxMatchedText: RE2 takes time
 * pattern × text, and a request's path, headers and body fields are the caller's to choose.
 */
function bounded(test: TextTest): TextTest {
  return (text) => text.length <= SCENARIO_BOUNDS.maxMatchedText && test(text);
}

/** A path or body glob: plain text is compared, a glob with `*` is run on bounded texts. */
function globMatcher(glob: string, options?: { segments: boolean }): TextTest {
  return glob.includes('*') ? bounded(globTest(glob, options)) : (text) => text === glob;
}

function textMatcher(expected: string): TextTest {
  if (expected.length > 1 && expected.startsWith('/') && expected.endsWith('/')) return bounded(regexTest(expected.slice(1, -1)));
  return (actual) => actual === expected;
}

/** Reads `a.b.0.c` or `/a/b/0/c` out of a parsed JSON body. */
export function readField(body: unknown, path: string): unknown {
  const segments = path.startsWith('/') ? path.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')) : path.split('.');
  let current: unknown = body;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/**
 * @example
 * compileMatch({ method: 'POST', path: '/v1/shipment-bookings' }).request({ method: 'POST', path: '/v1/shipment-bookings', headers: {} }) // true
 */
export function compileMatch(match: RequestMatch = {}): CompiledMatch {
  const methods = list(match.method)?.map((m) => m.toUpperCase());
  const paths = list(match.path)?.map((p) => globMatcher(p));
  const operationIds = list(match.operationId);
  const carriers = list(match.carrier)?.map((c) => c.toLowerCase());
  const headers = Object.entries(match.headers ?? {}).map(([name, value]) => [name.toLowerCase(), textMatcher(value)] as const);
  const query = match.query === undefined ? undefined : canonicalQuery(match.query);
  const body = Object.entries(match.body ?? {}).map(([field, expected]) => {
    const glob = typeof expected === 'string' ? globMatcher(expected, { segments: false }) : undefined;
    const test = glob ? (actual: unknown) => typeof actual === 'string' && glob(actual) : (actual: unknown) => actual === expected;
    return [field, test] as const;
  });

  return {
    needsBody: body.length > 0 || match.bodySha256 !== undefined,
    request(facts) {
      if (methods && !methods.includes(facts.method.toUpperCase())) return false;
      if (paths && !paths.some((test) => test(facts.path))) return false;
      if (operationIds && (!facts.operationId || !operationIds.includes(facts.operationId))) return false;
      if (match.account && facts.accountId !== match.account) return false;
      for (const [name, test] of headers) {
        const value = facts.headers[name];
        const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
        if (!values.some(test)) return false;
      }
      if (query !== undefined && canonicalQuery(facts.query ?? {}) !== query) return false;
      for (const [field, test] of body) if (!test(readField(facts.body, field))) return false;
      if (match.bodySha256 !== undefined && facts.bodySha256?.() !== match.bodySha256) return false;
      return true;
    },
    domain(facts) {
      if (operationIds && (!facts.operationId || !operationIds.includes(facts.operationId))) return false;
      if (match.account && facts.accountId !== match.account) return false;
      if (carriers) {
        const known = [facts.carrierId, facts.carrierCode].filter((v): v is string => Boolean(v)).map((v) => v.toLowerCase());
        if (!carriers.some((c) => known.includes(c))) return false;
      }
      return true;
    },
  };
}
