import type { Exchange } from '../recording/index.js';
import { REDACTED_MARK } from '../util/redact.js';

/**
 * One line of a recording folder's part file (`recording.har.part`): an exchange as a recorder
 * appends it while it runs, secrets already shortened — a compact JSON array, not a HAR entry
 * (that is built once, when the folder's files are written). The first member is the format's
 * version; a part file a killed run of an older shipmock left holds HAR entries (`{…}`), which
 * the folder still reads.
 *
 * `[1|2, startedAt, durationMs, operationId, [conforms, violations], method, url, requestHeaders,
 * requestBody, status, statusText, responseHeaders, responseBody]`: absent members are null,
 * headers are name/value pairs in their order, a body is text (a string), bytes (`[base64]`) or
 * null when absent.
 */
const VERSION = 1;
/**
 * Version 2: as 1, with the mark of a shortened secret ('…') spelled U+0001 in the URL and the
 * header values (JSON writes it `\u0001`). A client's shortened token is in every exchange's
 * headers, and one '…' makes the whole line two-byte text, slower to build and to encode; with
 * U+0001 a line of ASCII headers and bodies stays one-byte. A URL or header value that holds
 * U+0001 itself (HTTP refuses control characters in both; an exchange added by hand might) is
 * written as version 1.
 */
const MARKED = 2;
const LINE_MARK = '\u0001';

/** One-byte forms of marked values (a client's shortened credential repeats in every exchange). */
const oneByteForms = new Map<string, string>();

function marked(value: string): string {
  if (!value.includes(REDACTED_MARK)) return value;
  let form = oneByteForms.get(value);
  if (form === undefined) {
    if (oneByteForms.size >= 1000) oneByteForms.clear();
    const replaced = value.replaceAll(REDACTED_MARK, LINE_MARK);
    // Through Latin-1 when it can: the replaced text is still held as two-byte characters.
    form = /^[\0-\xff]*$/.test(replaced) ? Buffer.from(replaced, 'latin1').toString('latin1') : replaced;
    oneByteForms.set(value, form);
  }
  return form;
}

const unmarked = (value: string) => (value.includes(LINE_MARK) ? value.replaceAll(LINE_MARK, REDACTED_MARK) : value);

type LineBody = string | [string] | null;

const bodyOut = (body: string | Buffer | undefined): LineBody => (body === undefined ? null : typeof body === 'string' ? body : [body.toString('base64')]);
const bodyIn = (body: LineBody): string | Buffer | undefined => (body === null ? undefined : typeof body === 'string' ? body : Buffer.from(body[0], 'base64'));

function pairs(headers: Record<string, string>, mark: boolean): string[] {
  const out: string[] = [];
  for (const name in headers) out.push(name, mark ? marked(headers[name]) : headers[name]);
  return out;
}

function record(pairs: string[], mark: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < pairs.length; i += 2) out[pairs[i]] = mark ? unmarked(pairs[i + 1]) : pairs[i + 1];
  return out;
}

function holdsLineMark(headers: Record<string, string>): boolean {
  for (const name in headers) if (headers[name].includes(LINE_MARK)) return true;
  return false;
}

/**
 * The part-file line of an exchange whose secrets are shortened already (redactExchange): the
 * line holds exactly what it is given, newline included.
 *
 * @example appendFileSync(part, partLine(redactExchange(exchange)));
 */
export const partLine = (exchange: Exchange): string => `${partLineText(exchange)}\n`;

/**
 * partLine without its newline: for a writer that adds the newline itself (the line is then one
 * flat string, not a pair of strings to join before it is encoded).
 */
export function partLineText(exchange: Exchange): string {
  const { request, response, verdict } = exchange;
  const mark = !request.url.includes(LINE_MARK) && !holdsLineMark(request.headers) && !holdsLineMark(response.headers);
  return JSON.stringify([
    mark ? MARKED : VERSION,
    exchange.startedAt ?? null,
    exchange.durationMs ?? null,
    exchange.operationId ?? null,
    verdict ? [verdict.conforms, verdict.violations] : null,
    request.method,
    mark ? marked(request.url) : request.url,
    pairs(request.headers, mark),
    bodyOut(request.body),
    response.status,
    response.statusText ?? null,
    pairs(response.headers, mark),
    bodyOut(response.body),
  ]);
}

/** Whether a line of a part file is a partLine (else a HAR entry of an older shipmock). */
export const isPartLine = (line: string): boolean => line.startsWith(`[${VERSION},`) || line.startsWith(`[${MARKED},`);

/**
 * The exchange a partLine holds (the line without its newline, or with it).
 * Throws on a line that is not one (a line cut by a kill).
 */
export function parsePartLine(line: string): Exchange {
  const value = JSON.parse(line) as unknown[];
  if (!Array.isArray(value) || (value[0] !== VERSION && value[0] !== MARKED) || value.length !== 13) throw new Error('not a part line');
  const mark = value[0] === MARKED;
  const [, startedAt, durationMs, operationId, verdict, method, url, requestHeaders, requestBody, status, statusText, responseHeaders, responseBody] = value as [
    number,
    string | null,
    number | null,
    string | null,
    [boolean, { field: string; message: string }[]] | null,
    string,
    string,
    string[],
    LineBody,
    number,
    string | null,
    string[],
    LineBody,
  ];
  const exchange: Exchange = {
    request: { method, url: mark ? unmarked(url) : url, headers: record(requestHeaders, mark), body: bodyIn(requestBody) },
    response: { status, ...(statusText !== null ? { statusText } : {}), headers: record(responseHeaders, mark), body: bodyIn(responseBody) },
  };
  if (verdict !== null) exchange.verdict = { conforms: verdict[0], violations: verdict[1] };
  if (startedAt !== null) exchange.startedAt = startedAt;
  if (durationMs !== null) exchange.durationMs = durationMs;
  if (operationId !== null) exchange.operationId = operationId;
  return exchange;
}
