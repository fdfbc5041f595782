import type { IncomingHttpHeaders } from 'node:http';
import { isJsonMediaType, mediaTypeOf } from '../../contract/gate.js';
import type { DriftDifference } from '../../journal/drift-log.js';
import { isSecretName, redactHeader, redactJson, shortenSecret } from '../../util/redact.js';
import { decodeBody, type UpstreamAnswer } from '../upstream.js';
import type { Equivalence } from './equivalence.js';
import { formatPath, type PathSegment } from './json-path.js';
import type { Volatility } from './volatility.js';

/**
 * The headers that matter, and how each is compared. `value`: the values must agree (media type
 * and parameters in lower case; `Location` by path, with ids mapped). `presence`: both answers
 * have it or neither does, and its form agrees (an integer, a date) — its value is the service's
 * own (a rate-limit count, an ETag, a Retry-After a clock decides). Everything else (Date, Server,
 * Content-Length, Vary, X-Request-Id, tracing headers) is transport, not behaviour.
 */
export const COMPARED_HEADERS: Record<string, 'value' | 'presence'> = {
  'content-type': 'value',
  location: 'value',
  'cache-control': 'value',
  allow: 'value',
  'retry-after': 'presence',
  'x-ratelimit-limit': 'presence',
  'x-ratelimit-remaining': 'presence',
  'x-ratelimit-reset': 'presence',
  etag: 'presence',
  'last-modified': 'presence',
  'access-control-allow-origin': 'presence',
};

/** What a value looks like in a drift record: JSON text, at most this long. */
const SHOWN = 200;

export interface Comparison {
  differences: DriftDifference[];
  notes: string[];
  /** Both bodies parsed as JSON (what ids are learned from), when they were. */
  upstreamJson?: unknown;
  mockJson?: unknown;
}

export interface CompareContext {
  operationId?: string;
  volatility: Volatility;
  equivalence: Equivalence;
}

/** Differences between the real service's answer and the mock's to the same request. */
export function compareAnswers(upstream: UpstreamAnswer, mock: UpstreamAnswer, context: CompareContext): Comparison {
  const differences: DriftDifference[] = [];
  const notes: string[] = [];
  if (upstream.status !== mock.status) differences.push({ kind: 'status', field: 'status', issue: 'value', upstream: String(upstream.status), mock: String(mock.status) });
  differences.push(...compareHeaders(upstream.headers, mock.headers, context.equivalence));

  const upstreamBody = parseBody(upstream);
  const mockBody = parseBody(mock);
  const result: Comparison = { differences, notes };
  if (upstreamBody.kind === 'json' && mockBody.kind === 'json') {
    result.upstreamJson = upstreamBody.value;
    result.mockJson = mockBody.value;
    // Fields are judged by the schema of the answer the real service gave.
    const mediaType = mediaTypeOf(upstream.headers['content-type']);
    const judge = (path: PathSegment[]) => context.volatility.isVolatile(context.operationId, upstream.status, mediaType, path);
    compareJson(upstreamBody.value, mockBody.value, [], judge, context.equivalence, differences);
  } else if (upstreamBody.kind === 'empty' && mockBody.kind === 'empty') {
    // Nothing to compare.
  } else if (upstreamBody.kind === mockBody.kind && upstreamBody.kind !== 'json') {
    notes.push(`body not compared: ${upstreamBody.describe} from the real service, ${mockBody.describe} from the mock (only JSON bodies are compared field by field)`);
  } else {
    differences.push({ kind: 'body', field: '$', issue: 'type', upstream: upstreamBody.describe, mock: mockBody.describe });
  }
  return result;
}

type ParsedBody = { kind: 'json'; value: unknown; describe: string } | { kind: 'empty'; describe: string } | { kind: 'other'; describe: string };

function parseBody(answer: UpstreamAnswer): ParsedBody {
  if (answer.body.length === 0) return { kind: 'empty', describe: 'no body' };
  const mediaType = mediaTypeOf(answer.headers['content-type']);
  if (mediaType && isJsonMediaType(mediaType)) {
    try {
      return { kind: 'json', value: JSON.parse(decodeBody(answer.body, answer.headers['content-encoding']).toString('utf8')), describe: 'JSON' };
    } catch {
      return { kind: 'other', describe: `a body that is not JSON although Content-Type is ${mediaType}` };
    }
  }
  return { kind: 'other', describe: `${answer.body.length} bytes of ${mediaType ?? 'no declared type'}` };
}

function compareHeaders(upstream: IncomingHttpHeaders, mock: IncomingHttpHeaders, equivalence: Equivalence): DriftDifference[] {
  const out: DriftDifference[] = [];
  for (const [name, how] of Object.entries(COMPARED_HEADERS)) {
    const a = headerText(upstream[name]);
    const b = headerText(mock[name]);
    const field = `header/${name}`;
    const shown = (value: string) => redactHeader(name, value).slice(0, SHOWN);
    if (a === undefined && b === undefined) continue;
    if (a === undefined) out.push({ kind: 'header', field, issue: 'missing-upstream', mock: shown(b!) });
    else if (b === undefined) out.push({ kind: 'header', field, issue: 'missing-in-mock', upstream: shown(a) });
    else if (how === 'presence') {
      if (formOf(a) !== formOf(b)) out.push({ kind: 'header', field, issue: 'type', upstream: shown(a), mock: shown(b) });
    } else if (normalizeHeader(name, a, equivalence) !== normalizeHeader(name, b)) {
      out.push({ kind: 'header', field, issue: 'value', upstream: shown(a), mock: shown(b) });
    }
  }
  return out;
}

const headerText = (value: string | string[] | undefined): string | undefined => (value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : value);

/** integer, date, or text: the form a presence-compared header must keep. */
function formOf(value: string): string {
  if (/^\s*\d+\s*$/.test(value)) return 'integer';
  if (!Number.isNaN(Date.parse(value))) return 'date';
  return 'text';
}

function normalizeHeader(name: string, value: string, equivalence?: Equivalence): string {
  if (name === 'location') {
    const path = new URL(value, 'http://relative.invalid').pathname;
    return equivalence ? equivalence.path(path) : path;
  }
  if (name === 'allow') return value.split(',').map((m) => m.trim().toUpperCase()).sort().join(', ');
  return value.toLowerCase().replace(/\s*;\s*/g, '; ').trim();
}

const typeOf = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** A value as a drift record shows it: JSON text, secrets shortened, at most 200 characters. */
function shown(value: unknown, path: readonly PathSegment[]): string {
  const secret = path.some((segment) => typeof segment === 'string' && isSecretName(segment));
  const text = secret ? JSON.stringify(typeof value === 'string' ? shortenSecret(value) : shortenSecret(JSON.stringify(value))) : JSON.stringify(redactJson(value));
  return text.length > SHOWN ? `${text.slice(0, SHOWN - 1)}…` : text;
}

/**
 * Member by member, item by item: a field missing on one side or of another JSON type is drift
 * whatever it holds; a value differs only where the field is not volatile, after the upstream's
 * ids inside it are mapped to the mock's.
 */
function compareJson(a: unknown, b: unknown, path: PathSegment[], isVolatile: (path: PathSegment[]) => boolean, equivalence: Equivalence, out: DriftDifference[]): void {
  const field = formatPath(path);
  const ta = typeOf(a);
  const tb = typeOf(b);
  if (ta !== tb) {
    out.push({ kind: 'body', field, issue: 'type', upstream: shown(a, path), mock: shown(b, path) });
    return;
  }
  if (ta === 'array') {
    const left = a as unknown[];
    const right = b as unknown[];
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      const at = [...path, i];
      if (i >= right.length) out.push({ kind: 'body', field: formatPath(at), issue: 'missing-in-mock', upstream: shown(left[i], at) });
      else if (i >= left.length) out.push({ kind: 'body', field: formatPath(at), issue: 'missing-upstream', mock: shown(right[i], at) });
      else compareJson(left[i], right[i], at, isVolatile, equivalence, out);
    }
    return;
  }
  if (ta === 'object') {
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    for (const key of Object.keys(left)) {
      const at = [...path, key];
      if (!Object.hasOwn(right, key)) out.push({ kind: 'body', field: formatPath(at), issue: 'missing-in-mock', upstream: shown(left[key], at) });
      else compareJson(left[key], right[key], at, isVolatile, equivalence, out);
    }
    for (const key of Object.keys(right)) {
      const at = [...path, key];
      if (!Object.hasOwn(left, key)) out.push({ kind: 'body', field: formatPath(at), issue: 'missing-upstream', mock: shown(right[key], at) });
    }
    return;
  }
  if (a === b || isVolatile(path)) return;
  if (typeof a === 'string' && equivalence.translate(a) === b) return;
  out.push({ kind: 'body', field, issue: 'value', upstream: shown(a, path), mock: shown(b, path) });
}
