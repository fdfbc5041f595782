import type { OpenApiDocument } from '../contract/load-contract.js';
import type { Logger } from '../logging/logger.js';
import { decodeBody } from '../proxy/upstream.js';
import { startValidationProxy, type CapturedExchange, type ProxySummary, type ProxyViolation } from '../proxy/validation-proxy.js';
import type { RecordedExchange } from './recorded-exchange.js';
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
  /** How often the folder's files are rewritten while traffic comes in (ms, default 5000). */
  flushEveryMs?: number;
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

// Headers of the upstream's answer that describe the transfer, not the answer: a replay sends
// the decoded body with its own length.
const TRANSFER_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'trailer', 'upgrade']);

const pairs = (raw: string[], skip?: Set<string>): [string, string][] => {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) if (!skip?.has(raw[i].toLowerCase())) out.push([raw[i], raw[i + 1]]);
  return out;
};

const headerOf = (raw: string[], name: string): string | undefined => {
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === name) return raw[i + 1];
  return undefined;
};

/**
 * An exchange as the proxy saw it, as it is recorded: the answer's body decoded (a replay sends
 * it uncompressed), transfer headers left out. Secrets are still in it: they are shortened when
 * the folder's files are written, never before they reach the disk (src/record/recording-files.ts).
 */
export function recordedExchangeOf(captured: CapturedExchange): RecordedExchange {
  const url = new URL(captured.target, 'http://record.invalid');
  let body = captured.responseBody;
  try {
    body = decodeBody(body, headerOf(captured.responseHeaders, 'content-encoding'));
  } catch {
    // Not what its Content-Encoding says: kept as it came.
  }
  return {
    startedAt: captured.startedAt.toISOString(),
    durationMs: Math.round(captured.durationMs * 10) / 10,
    request: {
      method: captured.method,
      operationId: captured.operationId,
      path: url.pathname,
      query: url.search.slice(1),
      contentType: headerOf(captured.requestHeaders, 'content-type'),
      headers: pairs(captured.requestHeaders),
      body: captured.requestBody,
    },
    response: { status: captured.status, headers: pairs(captured.responseHeaders, TRANSFER_HEADERS), body },
    violations: captured.violations,
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
    flushEveryMs: options.flushEveryMs,
    onFlushError: (error) => options.logger?.error({ err: error, folder: options.out }, 'the recording could not be written; retrying'),
  });
  const contractBreaks: ContractBreak[] = [];
  let contractBreakCount = 0;
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
        const exchange = recordedExchangeOf(captured);
        folder.add(exchange);
        const broken = captured.violations.filter((v) => v.in === 'response');
        if (broken.length && ++contractBreakCount <= 1000) contractBreaks.push({ method: captured.method, path: exchange.request.path, operationId: captured.operationId, status: captured.status, violations: broken });
      },
    });
  } catch (error) {
    folder.close();
    throw error;
  }
  const running = proxy;
  const summary = (): RecordSummary => ({ proxy: running.summary(), ...folder.counts(), contractBreaks, contractBreakCount });
  let closing: Promise<RecordSummary> | undefined;
  return {
    url: running.url,
    port: running.port,
    folder,
    summary,
    close: () =>
      (closing ??= running.close().then(() => {
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
