import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { RequestState } from '../http/request-state.js';
import type { JournalExchange, JournalMessage, JournalValidation } from '../journal/journal.js';

/** Bytes of each body the journal keeps: enough to read an answer, small enough for 1,000 entries. */
export const JOURNAL_BODY_LIMIT = 16 * 1024;

/** Headers whose values are secrets: the journal shows their scheme and a few characters only. */
const SECRET_HEADERS = new Set(['authorization', 'x-admin-key', 'cookie', 'proxy-authorization']);
const TEXT_TYPE = /^(text\/|application\/([\w.+-]*\+)?(json|yaml|xml|x-zpl|x-www-form-urlencoded)\b)/i;

/**
 * A secret header as the inspector may show it: `Bearer eyJhbG…` — enough to tell tokens
 * apart, never enough to use one (the journal is readable by any same-origin page).
 */
export function redactSecret(value: string): string {
  const [scheme, credential] = value.includes(' ') ? value.split(/ (.*)/s, 2) : ['', value];
  const shown = `${credential.slice(0, 6)}…`;
  return scheme ? `${scheme} ${shown}` : shown;
}

function headerRecord(headers: IncomingHttpHeaders | OutgoingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? redactSecret(text) : text;
  }
  return out;
}

function message(headers: IncomingHttpHeaders | OutgoingHttpHeaders, body: Buffer | string | undefined): JournalMessage {
  const out: JournalMessage = { headers: headerRecord(headers), bodyBytes: body === undefined ? 0 : Buffer.byteLength(body) };
  if (!body || out.bodyBytes === 0) return out;
  const type = String(headers['content-type'] ?? 'application/octet-stream').split(';')[0].trim();
  if (!TEXT_TYPE.test(type)) return { ...out, binary: type };
  if (out.bodyBytes <= JOURNAL_BODY_LIMIT) return { ...out, body: body.toString() };
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  // toString drops a UTF-8 sequence cut in half as U+FFFD: the text stays valid.
  return { ...out, body: bytes.subarray(0, JOURNAL_BODY_LIMIT).toString(), bodyTruncated: true };
}

/** The request and its answer as the journal keeps them, headers redacted, bodies cut. */
export function journalExchange(headers: IncomingHttpHeaders, responseHeaders: OutgoingHttpHeaders | undefined, state: RequestState): JournalExchange {
  return {
    request: message(headers, state.requestBody),
    ...(responseHeaders ? { response: message(responseHeaders, state.responsePayload) } : {}),
    violations: { request: state.requestViolations ?? [], response: state.responseViolations ?? [] },
  };
}

/** The contract's verdict on a journaled request. */
export function validationVerdict(state: RequestState, answered: boolean): JournalValidation {
  if (state.requestViolations?.length) return 'invalid-request';
  if (state.responseViolations?.length) return 'invalid-response';
  return answered && state.requestChecked ? 'valid' : 'not-checked';
}
