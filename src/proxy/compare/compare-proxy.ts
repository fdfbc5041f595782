import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isJsonMediaType, mediaTypeOf } from '../../contract/gate.js';
import { loadCompiledContract } from '../../contract/compiled-contract.js';
import type { OpenApiDocument } from '../../contract/load-contract.js';
import { createRouteMatcher } from '../../contract/route-matcher.js';
import { fieldPattern, type DriftLog, type DriftRecord, type DriftSummary } from '../../journal/drift-log.js';
import type { Logger } from '../../logging/logger.js';
import { redactUrl } from '../../util/redact.js';
import { decodeBody, forward, passThroughHeaders, readAll, type UpstreamAnswer } from '../upstream.js';
import { compareAnswers } from './differ.js';
import { Equivalence } from './equivalence.js';
import { createVolatility } from './volatility.js';

export interface CompareProxyOptions {
  /** The real service (its path prefix is kept). */
  upstream: string;
  /** The mock with equivalent state: its URL and its own company credentials. */
  mock: { url: string; credentials: { companyId: string; clientId: string; clientSecret: string } };
  /** Where each compared exchange is recorded (the mock's store: GET /__admin/drift reads it). */
  drift: DriftLog;
  /** JSON paths whose values are volatile besides those the contract and the names say (`$.items[*].createdAt`). */
  ignore?: readonly string[];
  /** The loaded contract document or a file; default the bundled one. */
  contract?: string | OpenApiDocument;
  port?: number;
  host?: string;
  timeoutMs?: number;
  logger?: Logger;
}

export interface RunningCompare {
  url: string;
  port: number;
  /** Counts over every exchange compared since start (also those the drift log has dropped since). */
  summary(): DriftSummary;
  close(): Promise<void>;
}

/** Answer header: how many differences the mock's answer to this request had (0: none). */
export const DRIFT_COUNT_HEADER = 'X-Shipmock-Drift-Count';

const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/**
 * `shipmock compare`: a reverse proxy that sends each request to the real service and, with ids
 * and credentials translated (src/proxy/compare/equivalence.ts), to the mock; answers the client
 * with the real service's answer (plus X-Shipmock-Drift-Count) and records the differences.
 * `/__admin/…` is the mock's control plane, passed through (the drift report, the inspector).
 *
 * @example
 * const compare = await startCompareProxy({ upstream: 'https://api.example.com', mock: { url: mock.url, credentials: mock.credentials }, drift });
 */
export async function startCompareProxy(options: CompareProxyOptions): Promise<RunningCompare> {
  const upstream = new URL(options.upstream);
  const mockUrl = new URL(options.mock.url);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const { contract } = loadCompiledContract(options.contract);
  const routes = createRouteMatcher(contract.operations);
  const volatility = createVolatility(contract, options.ignore);
  const equivalence = new Equivalence(options.mock.credentials, { upstream: upstream.origin + upstream.pathname.replace(/\/+$/, ''), mock: mockUrl.origin });
  const totals = createTotals();
  const log = options.logger;
  let ownOrigin = (): string | undefined => undefined;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const method = req.method ?? 'GET';
    const path = target.split('?')[0];
    const body = await readAll(req);
    if (path === '/__admin' || path.startsWith('/__admin/')) return controlPlane(req, res, target, body);
    const match = routes.match(method, path);
    const operationId = match.kind === 'operation' ? match.operation.operationId : undefined;
    if (operationId === 'issueCompanyToken' && match.kind === 'operation') equivalence.learnCompany(match.pathParams['company-id']);

    const mockRequest = toMock(req.headers, method, target, body, equivalence);
    const [fromUpstream, fromMock] = await Promise.all([
      forward(upstream, timeoutMs, req, target, body).catch((error: Error) => error),
      forward(mockUrl, timeoutMs, { method, headers: mockRequest.headers }, mockRequest.target, mockRequest.body).catch((error: Error) => error),
    ]);

    if (fromUpstream instanceof Error) {
      log?.warn({ method, path: redactUrl(target), err: fromUpstream.message }, 'real service unreachable; nothing compared');
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'upstream unreachable', detail: fromUpstream.message }));
      return;
    }
    const record = compareOne(fromUpstream, fromMock, { method, target, operationId, mockRequest });
    const stored = options.drift.record(record);
    totals.add(stored);
    if (stored.differences.length) log?.warn({ method, path: stored.path, operationId, differences: stored.differences }, `drift: ${stored.differences.length} difference(s) from the real service`);
    else log?.debug({ method, path: stored.path, operationId }, 'the mock answered like the real service');

    const headers = passThroughHeaders(fromUpstream);
    headers.push([DRIFT_COUNT_HEADER, String(stored.differences.length)]);
    res.writeHead(fromUpstream.status, headers.flat());
    res.end(fromUpstream.body);
  }

  /**
   * /__admin on the compare port is the mock's control plane (the drift report, the inspector),
   * never compared nor sent to the real service. A page of the compare port is the mock's own
   * page: its Origin is passed on as the mock's.
   */
  async function controlPlane(req: IncomingMessage, res: ServerResponse, target: string, body: Buffer): Promise<void> {
    const headers = { ...req.headers };
    if (headers.origin === ownOrigin()) headers.origin = mockUrl.origin;
    const answer = await forward(mockUrl, timeoutMs, { method: req.method, headers }, target, body).catch((error: Error) => error);
    if (answer instanceof Error) {
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'mock unreachable', detail: answer.message }));
      return;
    }
    res.writeHead(answer.status, passThroughHeaders(answer).flat());
    res.end(answer.body);
  }

  function compareOne(
    fromUpstream: UpstreamAnswer,
    fromMock: UpstreamAnswer | Error,
    request: { method: string; target: string; operationId?: string; mockRequest: MockRequest },
  ): Omit<DriftRecord, 'id' | 'at'> {
    const base = { method: request.method, path: redactUrl(request.target), ...(request.operationId ? { operationId: request.operationId } : {}), upstreamStatus: fromUpstream.status };
    if (fromMock instanceof Error) {
      return { ...base, mockStatus: 502, differences: [{ kind: 'status', field: 'status', issue: 'value', upstream: String(fromUpstream.status), mock: '502' }], notes: [`the mock could not be reached: ${fromMock.message}`] };
    }
    // Learn first: a create's answer may name its own new ids in other fields (a document URL).
    // A read of a thing named by a known id teaches too (a tracking number appears once the booking
    // is read); a list does not: items the real service had before the run would pair by position.
    const samePair = WRITES.has(request.method) || request.mockRequest.target !== request.target;
    if (samePair && fromUpstream.status < 300 && fromMock.status < 300) {
      if (WRITES.has(request.method)) equivalence.learnFromLocations(headerOf(fromUpstream.headers.location), headerOf(fromMock.headers.location));
      equivalence.learnFromAnswers(jsonOf(fromUpstream), jsonOf(fromMock));
    }
    const comparison = compareAnswers(fromUpstream, fromMock, { operationId: request.operationId, volatility, equivalence });
    const notes = [...request.mockRequest.notes, ...comparison.notes];
    return { ...base, mockStatus: fromMock.status, differences: comparison.differences, ...(notes.length ? { notes } : {}) };
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      log?.error({ err: error }, 'compare failure');
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'compare failure', detail: error.message }));
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4030, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  ownOrigin = () => url;
  return {
    url,
    port,
    summary: totals.summary,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface MockRequest {
  target: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** What the translation could not do (a token compare never saw issued). */
  notes: string[];
}

/** The client's request as the mock gets it: ids, company and credentials the mock's own. */
function toMock(headers: IncomingHttpHeaders, method: string, target: string, body: Buffer, equivalence: Equivalence): MockRequest {
  const notes: string[] = [];
  const out: IncomingHttpHeaders = { ...headers };
  delete out['content-length'];
  const authorization = headerOf(headers.authorization);
  if (authorization !== undefined) {
    const mapped = equivalence.authorization(authorization);
    if (mapped === authorization && /^bearer\s/i.test(authorization)) notes.push('the Bearer token was not issued through compare: the mock got it as sent');
    out.authorization = mapped;
  }
  let mockBody = body;
  const mediaType = mediaTypeOf(headers['content-type']);
  if (body.length && mediaType && isJsonMediaType(mediaType) && method !== 'GET') {
    try {
      mockBody = Buffer.from(JSON.stringify(equivalence.body(JSON.parse(decodeBody(body, headers['content-encoding']).toString('utf8')))));
      delete out['content-encoding'];
    } catch {
      // Not JSON after all: sent as it came (both sides answer the same malformed body).
    }
  }
  return { target: equivalence.path(target), headers: out, body: mockBody, notes };
}

const headerOf = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

function jsonOf(answer: UpstreamAnswer): unknown {
  const mediaType = mediaTypeOf(answer.headers['content-type']);
  if (!answer.body.length || !mediaType || !isJsonMediaType(mediaType)) return undefined;
  try {
    return JSON.parse(decodeBody(answer.body, answer.headers['content-encoding']).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Running counts of a compare run (the drift log keeps the newest records; these count all). */
function createTotals() {
  const summary: DriftSummary = { compared: 0, drifted: 0, byOperation: {}, byField: [] };
  const fields = new Map<string, DriftSummary['byField'][number]>();
  return {
    add(record: DriftRecord): void {
      summary.compared++;
      const entry = (summary.byOperation[record.operationId ?? `${record.method} ${record.path.split('?')[0]}`] ??= { requests: 0, drifted: 0, fields: {} });
      entry.requests++;
      if (!record.differences.length) return;
      summary.drifted++;
      entry.drifted++;
      for (const d of record.differences) {
        const field = fieldPattern(d.field);
        entry.fields[field] = (entry.fields[field] ?? 0) + 1;
        const key = `${d.kind} ${field}`;
        const counted = fields.get(key) ?? { field, kind: d.kind, count: 0 };
        counted.count++;
        fields.set(key, counted);
      }
    },
    summary(): DriftSummary {
      const byField = [...fields.values()].map((f) => ({ ...f })).sort((a, b) => b.count - a.count || a.field.localeCompare(b.field));
      return { ...structuredClone(summary), byField };
    },
  };
}

/**
 * The summary printed when a compare run stops.
 * @example process.stdout.write(formatDriftSummary(compare.summary()));
 */
export function formatDriftSummary(summary: DriftSummary): string {
  const lines = [`${summary.compared} request(s) compared, ${summary.drifted} with drift from the real service`];
  for (const [operation, entry] of Object.entries(summary.byOperation).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`  ${operation.padEnd(40)} ${String(entry.requests).padStart(5)} request(s) ${String(entry.drifted).padStart(5)} drifted`);
  }
  if (summary.byField.length) {
    lines.push('Fields that differed, most frequent first:');
    for (const { field, kind, count } of summary.byField.slice(0, 50)) lines.push(`  ${String(count).padStart(5)}×  ${kind.padEnd(6)} ${field}`);
  }
  return `${lines.join('\n')}\n`;
}
