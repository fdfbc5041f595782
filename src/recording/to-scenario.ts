import { bodySha256, canonicalQuery, requestQuery } from '../scenarios/body-digest.js';
import type { Effect, RecordedInfo, RespondEffect, Rule, ScenarioDefinition } from '../scenarios/model.js';
import { RECORDED_BOUNDS } from '../scenarios/scenario-file.js';
import { headerOf, redactExchange, type Exchange } from './exchange.js';

/** What happens when a rule's recorded answers are used up (README, "Recorded answers"). */
export type AfterLast = 'last' | 'miss' | 'cycle';

export interface ToScenarioOptions {
  /** The scenario's name (kebab-case). */
  name: string;
  description?: string;
  /** Where the exchanges came from (a HAR file, the journal, an upstream URL): each rule's `recorded.source`. */
  source?: string;
  /** The contract operation of a request (the contract's route), for `match.operationId`. */
  operationOf?: (method: string, path: string) => string | undefined;
  /**
   * After a rule's last recorded answer: `last` (default) keeps answering it, `miss` lets the
   * request through (to the stateful mock, or `--on-miss`), `cycle` starts the answers again.
   */
  afterLast?: AfterLast;
}

/** A recording that cannot become a scenario (too many distinct requests, an unusable exchange). */
export class RecordingError extends Error {
  constructor(
    message: string,
    readonly violations: { field: string; message: string }[] = [],
  ) {
    super(message);
    this.name = 'RecordingError';
  }
}

/**
 * Response headers a recorded answer does not keep: framing (the mock frames its own answer),
 * the body's transfer coding (bodies are kept decoded), Date (stale on replay), and what the
 * replaying mock decides itself (its request id, CORS, its own X-Shipmock-* markers).
 */
const NOT_KEPT = /^(content-length|transfer-encoding|content-encoding|connection|keep-alive|date|x-request-id|access-control-.*|vary|x-shipmock-.*|:.*)$/i;
/** Bounds of a respond effect's headers (scenario.schema.json). */
const MAX_HEADERS = 64;
const MAX_HEADER_VALUE = 8192;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
/** A JSON answer nested deeper than this is kept as text (it round-trips byte for byte either way). */
const MAX_JSON_DEPTH = 64;
const TEXT_TYPE = /^(text\/|application\/([\w.+-]*\+)?(json|yaml|xml|x-zpl|x-www-form-urlencoded|javascript)\b)/i;
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;

/**
 * A scenario whose rules answer the recorded responses for matching requests, in the existing
 * scenario format (README, "Recorded answers"). Requests match by method, literal path (so its
 * path parameters), operation, exact query and the SHA-256 of the canonical request body; other
 * headers do not decide (a new token must still get the recorded answer). Identical requests
 * answered more than once become one rule with an ordered `sequence` of their answers. Every
 * secret is shortened first (redactExchange). Each rule keeps the contract's verdict on its
 * answers in `recorded`.
 *
 * @example
 * const scenario = exchangesToScenario(harToExchanges(har).exchanges, { name: 'checkout', source: 'checkout.har' });
 * engine.activate(scenario);
 */
export function exchangesToScenario(exchanges: readonly Exchange[], options: ToScenarioOptions): ScenarioDefinition {
  const groups = new Map<string, { rule: Rule; answers: Effect[]; verdicts: Exchange['verdict'][]; at?: string }>();
  exchanges.forEach((raw, i) => {
    const exchange = redactExchange(raw);
    let url: URL;
    try {
      url = new URL(exchange.request.url);
    } catch {
      throw new RecordingError(`exchange ${i} has no absolute URL`, [{ field: `exchanges/${i}/request/url`, message: 'must be an absolute URL' }]);
    }
    const { status } = exchange.response;
    if (!Number.isInteger(status) || status < 100 || status > 599) {
      throw new RecordingError(`exchange ${i} has no HTTP status`, [{ field: `exchanges/${i}/response/status`, message: 'must be an HTTP status (100–599)' }]);
    }
    const method = exchange.request.method.toUpperCase();
    // As sent (percent-escapes kept): the mock matches the request line's path the same way.
    const path = url.pathname;
    const query = requestQuery(url.search);
    const digest = bodySha256(exchange.request.body, headerOf(exchange.request.headers, 'content-type'));
    const key = `${method} ${path}?${canonicalQuery(query)}#${digest ?? ''}`;
    let group = groups.get(key);
    if (!group) {
      const operationId = exchange.operationId ?? options.operationOf?.(method, path);
      group = {
        rule: { match: { method, path, ...(operationId ? { operationId } : {}), query, ...(digest ? { bodySha256: digest } : {}) } },
        answers: [],
        verdicts: [],
        at: exchange.startedAt,
      };
      groups.set(key, group);
    }
    if (group.answers.length < RECORDED_BOUNDS.maxSteps) {
      group.answers.push({ respond: recordedRespond(exchange) });
      group.verdicts.push(exchange.verdict);
    }
  });
  if (groups.size > RECORDED_BOUNDS.maxRules) {
    throw new RecordingError(`the recording holds ${groups.size} distinct requests; a recorded scenario holds at most ${RECORDED_BOUNDS.maxRules}`);
  }
  if (groups.size === 0) throw new RecordingError('the recording holds no exchange to answer', [{ field: 'exchanges', message: 'must hold at least one exchange with an answer' }]);
  const afterLast = options.afterLast ?? 'last';
  const names = new Map<string, number>();
  const rules = [...groups.values()].map(({ rule, answers, verdicts, at }): Rule => {
    const base = (rule.match!.operationId as string | undefined) ?? `${rule.match!.method} ${rule.match!.path}`;
    const seen = (names.get(base) ?? 0) + 1;
    names.set(base, seen);
    const name = (seen === 1 ? base : `${base} #${seen}`).slice(-64);
    const recorded = recordedInfo(verdicts, at, options.source, answers.length);
    const single = answers.length === 1 && afterLast === 'last';
    return {
      name,
      match: rule.match,
      ...(single ? { effect: answers[0] } : { sequence: answers, ...(afterLast === 'last' ? { repeat: 'last' as const } : afterLast === 'cycle' ? { repeat: true } : {}) }),
      recorded,
    };
  });
  return { name: options.name, ...(options.description ? { description: options.description.slice(0, 500) } : {}), rules };
}

function recordedInfo(verdicts: Exchange['verdict'][], at: string | undefined, source: string | undefined, count: number): RecordedInfo {
  const checked = verdicts.filter((v): v is NonNullable<typeof v> => v !== undefined);
  const violations = checked.flatMap((v) => v.violations).slice(0, 100).map((v) => ({ field: v.field.slice(0, 500), message: v.message.slice(0, 1000) }));
  return {
    ...(checked.length ? { conforms: checked.every((v) => v.conforms) } : {}),
    ...(violations.length ? { violations } : {}),
    ...(at ? { at: at.slice(0, 40) } : {}),
    ...(source ? { source: source.slice(0, 500) } : {}),
    exchanges: count,
  };
}

/** The respond effect of a recorded answer: status, the headers worth keeping, and the body in its most readable exact form. */
export function recordedRespond(exchange: Exchange): RespondEffect {
  const { response } = exchange;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (NOT_KEPT.test(name) || !HEADER_NAME.test(name) || value.length > MAX_HEADER_VALUE || Object.keys(headers).length >= MAX_HEADERS) continue;
    headers[name] = value;
  }
  const type = (headerOf(response.headers, 'content-type') ?? '').split(';')[0].trim();
  const body = response.body;
  const respond: RespondEffect = { status: response.status, ...(Object.keys(headers).length ? { headers } : {}) };
  if (body === undefined || body.length === 0) return { ...respond, text: '' };
  const bytes = typeof body === 'string' ? undefined : body;
  const text = typeof body === 'string' ? body : TEXT_TYPE.test(type) && isUtf8(body) ? body.toString('utf8') : undefined;
  if (text === undefined) return { ...respond, base64: bytes!.toString('base64') };
  // A JSON answer is kept as a value (readable, editable) when writing it back gives the same bytes.
  if (JSON_TYPE.test(type)) {
    try {
      const value: unknown = JSON.parse(text);
      if (depthWithin(value, MAX_JSON_DEPTH) && JSON.stringify(value) === text) return { ...respond, body: value };
    } catch {
      // Not JSON after all: kept as text.
    }
  }
  return { ...respond, text };
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Whether a JSON value nests at most `max` levels (walked no deeper than that). */
function depthWithin(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (max === 0) return false;
  return (Array.isArray(value) ? value : Object.values(value)).every((v) => depthWithin(v, max - 1));
}
