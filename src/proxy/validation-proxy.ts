import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAuthorization } from '../auth/authorization.js';
import { loadCompiledContract } from '../contract/compiled-contract.js';
import { createContractGate, isJsonMediaType, mediaTypeOf, violationsHeaderValue, VIOLATIONS_HEADER, type ContractGate } from '../contract/gate.js';
import type { OpenApiDocument } from '../contract/load-contract.js';
import { createRouteMatcher } from '../contract/route-matcher.js';
import { createValidators } from '../contract/validators.js';
import { queryObject } from '../http/read-request.js';
import type { Logger } from '../logging/logger.js';
import { createExchangeLog, type ProxyExchange, type ProxySummary, type ProxyViolation } from './exchange-log.js';
import { decodeBody, forward, passThroughHeaders, readAll, type UpstreamAnswer } from './upstream.js';

export { formatProxySummary, type ProxyExchange, type ProxySummary, type ProxyViolation } from './exchange-log.js';
export { VIOLATIONS_HEADER } from '../contract/gate.js';

export interface ValidationProxyOptions {
  /** Base URL of the implementation under test; its path prefix is kept (https://api.example.com/shipping). */
  upstream: string;
  port?: number;
  host?: string;
  /** OpenAPI 3.1 contract to validate against. Default: the bundled contract. */
  contract?: string | OpenApiDocument;
  logger?: Logger;
  /** Upstream timeout in ms (default 30 s): a hung upstream becomes a 502 instead of a hung client. */
  timeoutMs?: number;
  /**
   * Told of every exchange the upstream answered, whole, after its answer was written to the
   * client (`shipmock record` keeps them). Not called when the upstream could not be reached.
   */
  onExchange?: (exchange: CapturedExchange) => void;
}

/** One exchange as it went through the proxy: the request as the client sent it, the upstream's answer as it came. */
export interface CapturedExchange {
  /** When the request arrived and how long the upstream took (wall clock: this is real traffic). */
  startedAt: Date;
  durationMs: number;
  method: string;
  /** Path and query as the client sent them (without the upstream's prefix). */
  target: string;
  /** Header names and values as received, alternating (IncomingMessage.rawHeaders). */
  requestHeaders: string[];
  requestBody: Buffer;
  operationId?: string;
  status: number;
  /** Header names and values as the upstream sent them, alternating. */
  responseHeaders: string[];
  /** As sent (still compressed when the upstream compressed it). */
  responseBody: Buffer;
  violations: ProxyViolation[];
}

export interface RunningProxy {
  url: string;
  port: number;
  summary(): ProxySummary;
  /** Every exchange seen, oldest first (bounded to the last 10,000). */
  exchanges(): readonly ProxyExchange[];
  close(): Promise<void>;
}

/** `[{in, field, message}]`, `[]` when clean (X-Shipmock-Violations), and how many. */
export const VIOLATIONS_COUNT_HEADER = 'X-Shipmock-Violations-Count';

/** Real traffic is checked whole: only the nesting depth of JSON bodies is bounded. */
const JSON_LIMITS = { keys: Infinity, values: Infinity };

/**
 * A validating reverse proxy for a real implementation of the Shipping Platform API: forwards
 * every request to the upstream, checks the request and the answer against the contract with
 * the same contract gate the mock uses, and passes the answer through unchanged — adding only
 * `X-Shipmock-Violations` (JSON list, as the `validation: strict` scenario writes it) and
 * `X-Shipmock-Violations-Count`. Violations are logged per exchange and summed up in `summary()`.
 *
 * @example
 * const proxy = await startValidationProxy({ upstream: 'https://api.example.com', port: 4020 });
 * // point the client at proxy.url, run it, then:
 * console.log(proxy.summary());
 */
export async function startValidationProxy(options: ValidationProxyOptions): Promise<RunningProxy> {
  const upstream = new URL(options.upstream);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const { contract, schemas } = loadCompiledContract(options.contract);
  const gate = createContractGate({ contract, validators: createValidators(contract, schemas), routes: createRouteMatcher(contract.operations) });
  const log = createExchangeLog(options.logger);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://proxy.invalid');
    const method = req.method ?? 'GET';
    const startedAt = new Date();
    const started = performance.now();
    const body = await readAll(req);
    const checked = checkRequest(gate, req, url, body);
    const answer = await forward(upstream, timeoutMs, req, url.pathname + url.search, body).catch((error: Error) => error);

    if (answer instanceof Error) {
      const violations = [...checked.violations];
      log.record({ method, path: url.pathname, operationId: checked.operationId, status: 502, violations });
      res.writeHead(502, { 'Content-Type': 'application/json', [VIOLATIONS_HEADER]: violationsHeaderValue(violations), [VIOLATIONS_COUNT_HEADER]: String(violations.length) });
      res.end(JSON.stringify({ error: 'upstream unreachable', detail: answer.message }));
      return;
    }

    const violations = [...checked.violations, ...(checked.operationId ? checkAnswer(gate, checked.operationId, answer) : [])];
    log.record({ method, path: url.pathname, operationId: checked.operationId, status: answer.status, violations });
    const headers = passThroughHeaders(answer);
    headers.push([VIOLATIONS_HEADER, violationsHeaderValue(violations)], [VIOLATIONS_COUNT_HEADER, String(violations.length)]);
    res.writeHead(answer.status, headers.flat());
    res.end(answer.body);
    options.onExchange?.({
      startedAt,
      durationMs: performance.now() - started,
      method,
      target: req.url ?? '/',
      requestHeaders: req.rawHeaders,
      requestBody: body,
      operationId: checked.operationId,
      status: answer.status,
      responseHeaders: answer.raw,
      responseBody: answer.body,
      violations,
    });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      options.logger?.error({ err: error }, 'proxy failure');
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'proxy failure', detail: error.message }));
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4020, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    exchanges: log.exchanges,
    summary: log.summary,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const inRequest = (v: { field: string; message: string }): ProxyViolation => ({ in: 'request', ...v });

/** What the client sent, against the contract; a route outside it is a violation too. */
export function checkRequest(gate: ContractGate, req: IncomingMessage, url: URL, body: Buffer): { operationId?: string; violations: ProxyViolation[] } {
  // A CORS preflight is the browser's question, not an API call: the contract has no OPTIONS.
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) return { violations: [] };
  const match = gate.routes.match(req.method ?? 'GET', url.pathname);
  if (match.kind !== 'operation') {
    const message = match.kind === 'method-not-allowed' ? `${req.method} is not declared for this path (allowed: ${match.allowed.join(', ')})` : 'no operation of the contract has this path';
    return { violations: [{ in: 'request', field: `route ${req.method} ${url.pathname}`, message }] };
  }
  const { operation } = match;
  const checked = gate.checkRequest(operation, { pathParams: { ...match.pathParams }, query: queryObject(url.searchParams), headers: req.headers, body }, { jsonLimits: JSON_LIMITS });
  const violations = checked.violations.map(inRequest);
  if (operation.security.length && parseAuthorization(req.headers.authorization).scheme === 'none') {
    violations.push({ in: 'request', field: 'header/authorization', message: `is required (${operation.security.join(' or ')})` });
  }
  return { operationId: operation.operationId, violations };
}

/** What the upstream answered, against the operation's declared responses. */
export function checkAnswer(gate: ContractGate, operationId: string, answer: UpstreamAnswer): ProxyViolation[] {
  const mediaType = answer.body.length ? mediaTypeOf(answer.headers['content-type']) : undefined;
  let parsed: unknown;
  if (mediaType && isJsonMediaType(mediaType)) {
    try {
      parsed = JSON.parse(decodeBody(answer.body, answer.headers['content-encoding'] as IncomingHttpHeaders['content-encoding']).toString('utf8'));
    } catch {
      return [{ in: 'response', field: 'body', message: `is not valid JSON although Content-Type is ${mediaType}` }];
    }
  }
  return gate.checkAnswer(operationId, { status: answer.status, mediaType, body: parsed }).violations.map((v) => ({ in: 'response' as const, ...v }));
}
