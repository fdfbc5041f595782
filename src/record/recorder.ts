import type { OpenApiDocument } from '../contract/load-contract.js';
import type { Logger } from '../logging/logger.js';
import { decodeBody } from '../proxy/upstream.js';
import { startValidationProxy, type CapturedExchange, type ProxySummary, type ProxyViolation } from '../proxy/validation-proxy.js';
import { headerOf, type Exchange, type ExchangeRequest, type ExchangeResponse } from '../recording/index.js';
import { createHeaderRedactor, redactBody, redactUrl } from '../util/redact.js';
import { redactedRequestKey } from './exchange-key.js';
import { partLineText } from './part-line.js';
import { MAX_ANSWERS_PER_REQUEST, openRecordingFolder, type RecordingFolder } from './recording-folder.js';

export interface RecorderOptions {
  /** Base URL of the real service; its path prefix is kept. */
  upstream: string;
  /** The recording folder (created if missing; recording again adds what is new). */
  out: string;
  port?: number;
  host?: string;
  contract?: string | OpenApiDocument;
  logger?: Logger;
  timeoutMs?: number;
}

/** A recorded answer that broke the contract: the real service drifting from it. */
export interface ContractBreak {
  method: string;
  path: string;
  operationId?: string;
  status: number;
  violations: ProxyViolation[];
}

export interface RecordSummary {
  proxy: ProxySummary;
  /** Exchanges the folder held before this run, those this run added, and those it had already. */
  found: number;
  added: number;
  known: number;
  /** Answers to one request past MAX_ANSWERS_PER_REQUEST: forwarded and checked, not kept. */
  dropped: number;
  /** Answers of this run that broke the contract (kept, and marked in the files): the first 1,000. */
  contractBreaks: ContractBreak[];
  /** How many answers of this run broke the contract. */
  contractBreakCount: number;
}

export interface RunningRecorder {
  url: string;
  port: number;
  folder: RecordingFolder;
  summary(): RecordSummary;
  /** Stops listening, writes the folder's files and releases it. */
  close(): Promise<RecordSummary>;
}

/** Header pairs (rawHeaders) as a recording keeps them: a repeated header's values joined (Set-Cookie with a newline). */
function headerRecord(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  // A message has a few headers: the names before are compared (a lower-cased copy only for one of
  // the same length) instead of a map of lower-cased names per message; with many, a map.
  const names = raw.length > 64 ? new Map<string, string>() : undefined;
  for (let i = 0; i < raw.length; i += 2) {
    let name: string | undefined;
    if (names) {
      const lower = raw[i].toLowerCase();
      name = names.get(lower);
      if (name === undefined) names.set(lower, raw[i]);
    } else name = earlierName(raw, i);
    if (name === undefined) out[raw[i]] = raw[i + 1];
    else out[name] = `${out[name]}${name.length === 10 && name.toLowerCase() === 'set-cookie' ? '\n' : ', '}${raw[i + 1]}`;
  }
  return out;
}

/** The first name before position `i` that is raw[i] whatever its case. */
function earlierName(raw: string[], i: number): string | undefined {
  const name = raw[i];
  let lower: string | undefined;
  for (let j = 0; j < i; j += 2) {
    const other = raw[j];
    if (other === name) return other;
    if (other.length === name.length && other.toLowerCase() === (lower ??= name.toLowerCase())) return other;
  }
  return undefined;
}

/** One strict decoder for every body (a decoder per exchange cost more than the decoding; decode() without `stream` keeps no state between calls). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A body as text when it is UTF-8 (so the converter can shorten the secrets in it), else as bytes; undefined when empty. */
function bodyOf(bytes: Buffer): string | Buffer | undefined {
  if (bytes.length === 0) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes;
  }
}

const headerIn = (raw: string[], name: string): string | undefined => {
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === name) return raw[i + 1];
  return undefined;
};

/** The request of recordedExchangeOf: all its matching key (src/record/exchange-key.ts) needs. */
export function recordedRequestOf(captured: CapturedExchange, origin: string, url = new URL(captured.target, origin)): ExchangeRequest {
  return { method: captured.method, url: url.href, headers: headerRecord(captured.requestHeaders), body: bodyOf(captured.requestBody) };
}

/**
 * An exchange as the proxy saw it, as it is recorded (src/recording's Exchange): the request's
 * URL is the upstream's origin with the path and query the client sent (what a replay matches),
 * the answer's body decoded (a replay sends it uncompressed), and the contract's verdict, each
 * violation's field prefixed with where it was (`request/…`, `response/…`). Secrets are still in
 * it: the converter shortens them before anything is written (src/record/recording-files.ts).
 */
export function recordedExchangeOf(captured: CapturedExchange, origin: string, request: ExchangeRequest = recordedRequestOf(captured, origin)): Exchange {
  return withMarks({ request, response: recordedResponseOf(captured) }, captured);
}

/** The answer of recordedExchangeOf. */
function recordedResponseOf(captured: CapturedExchange): ExchangeResponse {
  let body = captured.responseBody;
  try {
    body = decodeBody(body, headerIn(captured.responseHeaders, 'content-encoding'));
  } catch {
    // Not what its Content-Encoding says: kept as it came.
  }
  const headers = headerRecord(captured.responseHeaders);
  if (body !== captured.responseBody) {
    for (const name of Object.keys(headers)) if (/^content-(encoding|length)$/i.test(name)) delete headers[name];
  }
  return { status: captured.status, headers, body: bodyOf(body) };
}

/** The exchange given its verdict, times and operation, as recordedExchangeOf gives them (set on it, in that order). */
function withMarks(exchange: Exchange, captured: CapturedExchange): Exchange {
  exchange.verdict = { conforms: captured.violations.length === 0, violations: captured.violations.map((v) => ({ field: `${v.in}/${v.field}`, message: v.message })) };
  exchange.startedAt = captured.startedAt.toISOString();
  exchange.durationMs = Math.round(captured.durationMs * 10) / 10;
  if (captured.operationId) exchange.operationId = captured.operationId;
  return exchange;
}

/** A message's headers with the credentials shortened (redactExchange's, with a header redactor that remembers). */
function redactedHeaders(headers: Record<string, string>, redactHeaderValue: (name: string, value: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) out[name] = redactHeaderValue(name, headers[name]);
  return out;
}

/**
 * What `shipmock record` does with each exchange the proxy hands it: the key first, from the
 * request alone; the answer is converted only when it is kept, straight to its part-file line,
 * secrets shortened (a client sends the same credentials with every request: a header redactor
 * shortens each once). True when the folder kept it.
 *
 * The line is partLineText(redactExchange(recordedExchangeOf(captured))) and the key exchangeKey of
 * its request, made without the objects in between; the request's body is redacted once, for
 * its line and for its key's digest.
 *
 * @example const keep = exchangeKeeper(folder, 'https://staging.example.com'); keep(captured);
 */
export function exchangeKeeper(folder: RecordingFolder, origin: string): (captured: CapturedExchange) => boolean {
  const redactHeaderValue = createHeaderRedactor();
  return (captured) => {
    const url = new URL(captured.target, origin);
    const headers = headerRecord(captured.requestHeaders);
    const contentType = headerOf(headers, 'content-type');
    const sent = bodyOf(captured.requestBody);
    // As redactExchange shortens it: a body's secrets, read with its Content-Type.
    const body = typeof sent === 'string' ? redactBody(sent, contentType) : sent;
    const key = redactedRequestKey({ method: captured.method, path: url.pathname, search: url.search, contentType, body });
    return folder.addLine(key, () => {
      const response = recordedResponseOf(captured);
      const responseBody = typeof response.body === 'string' ? redactBody(response.body, headerOf(response.headers, 'content-type')) : response.body;
      return partLineText(
        withMarks(
          {
            request: { method: captured.method, url: redactUrl(url.href), headers: redactedHeaders(headers, redactHeaderValue), body },
            response: { status: response.status, headers: redactedHeaders(response.headers, redactHeaderValue), body: responseBody },
          },
          captured,
        ),
      );
    });
  };
}

/**
 * `shipmock record`: the validating proxy (src/proxy/validation-proxy.ts) in front of the real
 * service, keeping every exchange it forwards in a recording folder — a HAR 1.2 file and a
 * scenario that answers the recorded responses (src/record/recording-files.ts). Each exchange
 * keeps the contract's verdict; answers that break the contract are listed in the summary.
 *
 * @example
 * const recorder = await startRecorder({ upstream: 'https://staging.example.com', out: 'recordings/staging', port: 0 });
 * // point the client at recorder.url, run it, then:
 * const summary = await recorder.close();
 */
export async function startRecorder(options: RecorderOptions): Promise<RunningRecorder> {
  const folder = openRecordingFolder(options.out, {
    onWriteError: (error) => options.logger?.error({ err: error, folder: options.out }, 'the recording cannot be appended to; what comes in is written at the end'),
  });
  const contractBreaks: ContractBreak[] = [];
  let contractBreakCount = 0;
  const origin = new URL(options.upstream).origin;
  const keep = exchangeKeeper(folder, origin);
  // Kept after the answers were sent: the exchanges answered in one turn of the event loop are
  // converted together in the turn after (one setImmediate), off every request's path.
  let queued: CapturedExchange[] = [];
  let scheduled = false;
  const keepQueued = () => {
    scheduled = false;
    const batch = queued;
    queued = [];
    for (const captured of batch) {
      try {
        keep(captured);
      } catch (error) {
        options.logger?.error({ err: error, method: captured.method, target: captured.target }, 'the exchange could not be recorded');
      }
    }
  };
  let proxy;
  try {
    proxy = await startValidationProxy({
      upstream: options.upstream,
      port: options.port,
      host: options.host,
      contract: options.contract,
      logger: options.logger,
      timeoutMs: options.timeoutMs,
      onExchange(captured) {
        queued.push(captured);
        if (!scheduled) {
          scheduled = true;
          setImmediate(keepQueued);
        }
        const broken = captured.violations.filter((v) => v.in === 'response');
        if (broken.length && ++contractBreakCount <= 1000) {
          contractBreaks.push({ method: captured.method, path: new URL(captured.target, origin).pathname, operationId: captured.operationId, status: captured.status, violations: broken });
        }
      },
    });
  } catch (error) {
    folder.close();
    throw error;
  }
  const running = proxy;
  const summary = (): RecordSummary => {
    keepQueued();
    return { proxy: running.summary(), ...folder.counts(), contractBreaks, contractBreakCount };
  };
  let closing: Promise<RecordSummary> | undefined;
  return {
    url: running.url,
    port: running.port,
    folder,
    summary,
    close: () =>
      (closing ??= running.close().then(() => {
        keepQueued();
        folder.close();
        return summary();
      })),
  };
}

/**
 * What `shipmock record` prints when it stops.
 * @example process.stdout.write(formatRecordSummary(await recorder.close(), 'recordings/staging'));
 */
export function formatRecordSummary(summary: RecordSummary, dir: string): string {
  const lines = [
    `Recorded into ${dir}: ${summary.added} new exchange(s), ${summary.known} already recorded, ${summary.found + summary.added} in the folder`,
    ...(summary.dropped ? [`${summary.dropped} answer(s) not kept: a request is recorded with at most ${MAX_ANSWERS_PER_REQUEST} answers`] : []),
    `${summary.proxy.requests} request(s) proxied, ${summary.proxy.violating} with contract violations (${summary.proxy.violations} in total)`,
  ];
  if (summary.contractBreakCount) {
    lines.push(`${summary.contractBreakCount} recorded answer(s) break the contract (marked in the recording):`);
    for (const item of summary.contractBreaks.slice(0, 100)) {
      lines.push(`  ${item.method} ${item.path} → ${item.status}${item.operationId ? ` (${item.operationId})` : ''}`);
      for (const v of item.violations.slice(0, 5)) lines.push(`      ${v.field} ${v.message}`);
    }
    if (summary.contractBreakCount > 100) lines.push(`  … and ${summary.contractBreakCount - 100} more`);
  } else {
    lines.push('Every recorded answer conforms to the contract.');
  }
  return `${lines.join('\n')}\n`;
}
