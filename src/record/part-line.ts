import type { Exchange } from '../recording/index.js';

/**
 * One line of a recording folder's part file (`recording.har.part`): an exchange as a recorder
 * appends it while it runs, secrets already shortened — a compact JSON array, not a HAR entry
 * (that is built once, when the folder's files are written). The first member is the format's
 * version; a part file a killed run of an older shipmock left holds HAR entries (`{…}`), which
 * the folder still reads.
 *
 * `[1, startedAt, durationMs, operationId, [conforms, violations], method, url, requestHeaders,
 * requestBody, status, statusText, responseHeaders, responseBody]`: absent members are null,
 * headers are name/value pairs in their order, a body is text (a string), bytes (`[base64]`) or
 * null when absent.
 */
const VERSION = 1;

type LineBody = string | [string] | null;

const bodyOut = (body: string | Buffer | undefined): LineBody => (body === undefined ? null : typeof body === 'string' ? body : [body.toString('base64')]);
const bodyIn = (body: LineBody): string | Buffer | undefined => (body === null ? undefined : typeof body === 'string' ? body : Buffer.from(body[0], 'base64'));

function pairs(headers: Record<string, string>): string[] {
  const out: string[] = [];
  for (const name in headers) out.push(name, headers[name]);
  return out;
}

function record(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < pairs.length; i += 2) out[pairs[i]] = pairs[i + 1];
  return out;
}

/**
 * The part-file line of an exchange whose secrets are shortened already (redactExchange): the
 * line holds exactly what it is given, newline included.
 *
 * @example appendFileSync(part, partLine(redactExchange(exchange)));
 */
export function partLine(exchange: Exchange): string {
  const { request, response, verdict } = exchange;
  return `${JSON.stringify([
    VERSION,
    exchange.startedAt ?? null,
    exchange.durationMs ?? null,
    exchange.operationId ?? null,
    verdict ? [verdict.conforms, verdict.violations] : null,
    request.method,
    request.url,
    pairs(request.headers),
    bodyOut(request.body),
    response.status,
    response.statusText ?? null,
    pairs(response.headers),
    bodyOut(response.body),
  ])}\n`;
}

/** Whether a line of a part file is a partLine (else a HAR entry of an older shipmock). */
export const isPartLine = (line: string): boolean => line.startsWith(`[${VERSION},`);

/**
 * The exchange a partLine holds (the line without its newline, or with it).
 * Throws on a line that is not one (a line cut by a kill).
 */
export function parsePartLine(line: string): Exchange {
  const value = JSON.parse(line) as unknown[];
  if (!Array.isArray(value) || value[0] !== VERSION || value.length !== 13) throw new Error('not a part line');
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
    request: { method, url, headers: record(requestHeaders), body: bodyIn(requestBody) },
    response: { status, ...(statusText !== null ? { statusText } : {}), headers: record(responseHeaders), body: bodyIn(responseBody) },
  };
  if (verdict !== null) exchange.verdict = { conforms: verdict[0], violations: verdict[1] };
  if (startedAt !== null) exchange.startedAt = startedAt;
  if (durationMs !== null) exchange.durationMs = durationMs;
  if (operationId !== null) exchange.operationId = operationId;
  return exchange;
}
