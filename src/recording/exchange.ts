import { redactBody, redactHeader, redactUrl } from '../util/redact.js';

/**
 * One request and its answer as a recording keeps them: what a HAR entry, the journal or
 * `shipmock record` (proxying the real service) saw, and the contract's verdict on the answer.
 * The common currency of src/recording: HAR in (har.ts) and out, and the scenario a recording
 * becomes (to-scenario.ts).
 */
export interface ExchangeMessage {
  /** Names as sent; a repeated header's values joined with ', ' (Set-Cookie with '\n'). */
  headers: Record<string, string>;
  /** Text (a string) or bytes (a Buffer); absent when empty. */
  body?: string | Buffer;
}

export interface ExchangeRequest extends ExchangeMessage {
  method: string;
  /** Absolute URL (scheme, host, path, query). */
  url: string;
}

export interface ExchangeResponse extends ExchangeMessage {
  status: number;
  statusText?: string;
}

/** The contract's verdict on an exchange (absent: it was not checked). */
export interface ContractVerdict {
  /** The answer (and request) kept to the contract. */
  conforms: boolean;
  violations: { field: string; message: string }[];
}

export interface Exchange {
  request: ExchangeRequest;
  response: ExchangeResponse;
  verdict?: ContractVerdict;
  /** When the request started (ISO 8601). */
  startedAt?: string;
  /** How long the answer took, in ms. */
  durationMs?: number;
  /** The contract operation, when the recorder knew it. */
  operationId?: string;
}

/**
 * The exchange with every secret shortened by the control plane's one redaction function
 * (src/util/redact.ts): Authorization and other credential headers, cookies, signature and
 * `*-Token`/`*-Secret`/`*-Key` headers, tokens and client or webhook secrets in JSON and form
 * bodies, secret query parameters and URL passwords. Every way out of src/recording (a scenario,
 * a HAR entry) goes through it, so no recording holds a usable credential. Idempotent.
 * `redactHeaderValue`: redactHeader, or a redactor that remembers (createHeaderRedactor) — same results.
 *
 * @example redactExchange(exchange).request.headers.authorization // 'Bearer eyJhbG…'
 */
export function redactExchange(exchange: Exchange, redactHeaderValue: (name: string, value: string) => string = redactHeader): Exchange {
  return {
    ...exchange,
    request: { ...exchange.request, url: redactUrl(exchange.request.url), headers: redactAll(exchange.request.headers, redactHeaderValue), body: redactText(exchange.request.body, exchange.request.headers) },
    response: { ...exchange.response, headers: redactAll(exchange.response.headers, redactHeaderValue), body: redactText(exchange.response.body, exchange.response.headers) },
  };
}

function redactAll(headers: Record<string, string>, redactHeaderValue: (name: string, value: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) out[name] = redactHeaderValue(name, headers[name]);
  return out;
}

function redactText(body: string | Buffer | undefined, headers: Record<string, string>): string | Buffer | undefined {
  return typeof body === 'string' && body.length > 0 ? redactBody(body, headerOf(headers, 'content-type')) : body;
}

/** A header's value by name, whatever its case. */
export function headerOf(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const key in headers) if (key.length === lower.length && key.toLowerCase() === lower) return headers[key];
  return undefined;
}
