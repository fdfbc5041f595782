/**
 * What a scenario is, in the shape its file (YAML or JSON) has after parsing and validation
 * against scenarios/scenario.schema.json. The README section "qa" documents the format.
 *
 * A scenario is a list of rules; a rule says which requests (or domain moments: a carrier
 * call, a tracker update, a webhook attempt, a label, a quote) it `match`es, `when` it fires,
 * and the `effect` (or `sequence` of effects) it has.
 */

/** Milliseconds, or an ISO 8601 duration such as 'PT2S'. */
export type DurationValue = number | string;

export interface RequestMatch {
  method?: string | string[];
  /** Path glob: `*` is one path segment, `**` any number of them. */
  path?: string | string[];
  operationId?: string | string[];
  /** The account the request acts for (its token's account, or the account-id in the path). */
  account?: string;
  /** Carrier id or code: only for carrier effects (the HTTP layer does not know the carrier). */
  carrier?: string | string[];
  /** Header name → exact value, or `/regex/`. */
  headers?: Record<string, string>;
  /** Body field (dotted path or JSON pointer) → expected value; strings may use `*` globs. */
  body?: Record<string, string | number | boolean | null>;
  /**
   * The request's query parameters are exactly these (order aside; a repeated parameter as a
   * list, values compared as sent, decoded). `{}` matches a request without a query.
   */
  query?: Record<string, string | string[]>;
  /**
   * SHA-256 (hex) of the request body in canonical form, after secrets are shortened
   * (src/scenarios/body-digest.ts): how a recorded request's body is matched.
   */
  bodySha256?: string;
}

export interface When {
  /** Skip the first N matches. */
  after?: number;
  /** Fire at most N times. */
  times?: number;
  /** Fire on every k-th match (k, 2k, …), counted after `after`. */
  every?: number;
  /** Fire with this probability, drawn from the instance's seeded random source. */
  probability?: number;
  /** Window of virtual time: a duration from activation, or an absolute date-time. */
  from?: string;
  until?: string;
}

export type LatencyValue = DurationValue | { min: DurationValue; max: DurationValue } | { mean: DurationValue; stddev: DurationValue };

export interface RespondEffect {
  /** A problem answer (no body form below): 400–599. A recorded answer (one body form): 100–599. */
  status: number;
  /** Problem slug from the registry; default chosen by status. */
  problem?: string;
  title?: string;
  detail?: string;
  headers?: Record<string, string>;
  /** Seconds; sets Retry-After (and a consistent X-RateLimit-Reset on a 429). */
  retryAfter?: number;
  /**
   * A recorded answer instead of a problem: exactly one body form. `body`: a JSON value, written
   * as JSON (Content-Type from `headers`, else application/json); `text`: written as UTF-8 as is
   * (`''` for an empty body); `base64`: bytes (a PDF label, a PNG).
   */
  body?: unknown;
  text?: string;
  base64?: string;
}

/** A contract violation as recorded: where and what. */
export interface RecordedViolation {
  field: string;
  message: string;
}

/** What a recording knows of a rule's answers; informative only, the engine does not act on it. */
export interface RecordedInfo {
  /** Whether every recorded answer of the rule conformed to the contract (absent: not checked). */
  conforms?: boolean;
  /** The violations of the recorded answers, when they did not conform. */
  violations?: RecordedViolation[];
  /** When the (first) exchange happened (ISO 8601). */
  at?: string;
  /** Where it came from: a HAR file, the journal, an upstream URL. */
  source?: string;
  /** How many exchanges the rule stands for. */
  exchanges?: number;
}

export type CarrierOutcome = 'FAIL' | 'TIMEOUT' | 'REJECT' | 'SLOW';
export type TrackerOutcome = 'DELIVERED' | 'EXCEPTION' | 'RETURNED' | 'LOST';
export type WebhookOutcome = 'FAIL' | 'TIMEOUT' | 'ACK_LOST';

export interface Effect {
  latency?: LatencyValue;
  respond?: RespondEffect;
  /** Close the connection without an answer: `before` the request is handled, or `after` (state changed, answer lost). */
  reset?: 'before' | 'after' | boolean;
  /** Damage the answer: `truncate` (cut mid-body, connection closed) or `malformed` (complete but invalid JSON). */
  corrupt?: 'truncate' | 'malformed';
  rateLimit?: { limit: number; window: DurationValue };
  /** Treat the presented token as expired now (`true`), or tokens older than `olderThan`. */
  expireToken?: boolean | { olderThan: DurationValue };
  /** Echo request and response violations in X-Shipmock-Violations; response violations become 500s. */
  validation?: 'strict';
  carrier?: { outcome: CarrierOutcome; delay?: DurationValue; reason?: string };
  tracker?: { outcome: TrackerOutcome };
  webhook?: { outcome: WebhookOutcome; status?: number };
  label?: { outcome: 'FAIL'; reason?: string };
  quote?: { validity: DurationValue };
}

export interface Rule {
  name?: string;
  match?: RequestMatch;
  when?: When;
  effect?: Effect;
  /** Effects for successive firings; 'pass' lets that one through untouched. */
  sequence?: (Effect | 'pass')[];
  /**
   * After the sequence's last step: `true` starts it again, `last` keeps answering the last
   * step, `false` (default) the rule stops firing and the request goes on as if it were absent.
   */
  repeat?: boolean | 'last';
  /** The exchanges a rule was recorded from (a converted HAR, `shipmock record`). */
  recorded?: RecordedInfo;
}

export interface ParameterSpec {
  default?: string | number | boolean;
  description?: string;
}

export interface ScenarioDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, ParameterSpec>;
  rules: Rule[];
}

/** Which part of the mock a rule acts in. */
export type RuleKind = 'request' | 'carrier' | 'tracker' | 'webhook' | 'label' | 'quote';

export const DOMAIN_EFFECTS = ['carrier', 'tracker', 'webhook', 'label', 'quote'] as const;
export type DomainKind = (typeof DOMAIN_EFFECTS)[number];

/** Facts a domain hook reports when it asks whether a scenario wants to interfere. */
export interface DomainFacts {
  accountId?: string;
  carrierId?: string;
  carrierCode?: string;
  /** The contract operation in progress, when the hook runs inside a request. */
  operationId?: string;
}
