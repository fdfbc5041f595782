import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { loadCompiledContract } from '../contract/compiled-contract.js';
import type { OpenApiDocument } from '../contract/load-contract.js';
import { createRouteMatcher } from '../contract/route-matcher.js';
import { createValidators } from '../contract/validators.js';
import type { Logger } from '../logging/logger.js';

/** One way an exchange broke the contract (the shape `validation: strict` reports too). */
export interface ProxyViolation {
  /** request: what the client sent (also a route outside the contract); response: what the upstream answered. */
  in: 'request' | 'response';
  field: string;
  message: string;
}

export interface ProxyExchange {
  method: string;
  path: string;
  operationId?: string;
  status: number;
  violations: ProxyViolation[];
}

export interface ProxySummary {
  requests: number;
  /** Exchanges with at least one violation. */
  violating: number;
  violations: number;
  /** operationId (or "METHOD path" outside the contract) → counts. */
  byOperation: Record<string, { requests: number; violations: number }>;
  /** The distinct violations, most frequent first. */
  top: { key: string; count: number }[];
}

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
}

export interface RunningProxy {
  url: string;
  port: number;
  summary(): ProxySummary;
  /** Every exchange seen, oldest first (bounded to the last 10,000). */
  exchanges(): readonly ProxyExchange[];
  close(): Promise<void>;
}

/** JSON `[{in, field, message}]`, `[]` when clean — the same header and shape as the `validation: strict` scenario effect. */
export const VIOLATIONS_HEADER = 'X-Shipmock-Violations';
export const VIOLATIONS_COUNT_HEADER = 'X-Shipmock-Violations-Count';
const MAX_VIOLATIONS_HEADER = 4096;

// RFC 9110 §7.6.1: connection-specific headers are not forwarded by a proxy.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

const isJson = (mediaType: string) => mediaType === 'application/json' || (mediaType.startsWith('application/') && mediaType.endsWith('+json'));
const mediaTypeOf = (value: string | string[] | undefined) => String(Array.isArray(value) ? value[0] : value ?? '').split(';')[0].trim().toLowerCase();

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body);
    case 'deflate':
      return inflateSync(body);
    case 'br':
      return brotliDecompressSync(body);
    default:
      return body;
  }
}

/** A header value must be one line of visible ASCII; long lists are cut (the log has them whole). */
function headerSafe(text: string, max = MAX_VIOLATIONS_HEADER): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}

/**
 * A validating reverse proxy for a real implementation of the Shipping Platform API: forwards
 * every request to the upstream, checks the request and the answer against the contract with
 * the same Ajv validators the mock uses, and passes the answer through unchanged — adding only
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
  const basePath = upstream.pathname.replace(/\/+$/, '');
  const { contract, schemas } = loadCompiledContract(options.contract);
  const validators = createValidators(contract, schemas);
  const routes = createRouteMatcher(contract.operations);
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const log = options.logger;
  const history: ProxyExchange[] = [];
  const counts = new Map<string, number>();

  function checkRequest(req: IncomingMessage, url: URL, body: Buffer): { operationId?: string; violations: ProxyViolation[] } {
    // A CORS preflight is the browser's question, not an API call: the contract has no OPTIONS.
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) return { violations: [] };
    const match = routes.match(req.method ?? 'GET', url.pathname);
    if (match.kind !== 'operation') {
      const message = match.kind === 'method-not-allowed' ? `${req.method} is not declared for this path (allowed: ${match.allowed.join(', ')})` : 'no operation of the contract has this path';
      return { violations: [{ in: 'request', field: `route ${req.method} ${url.pathname}`, message }] };
    }
    const { operation } = match;
    const validator = validators.forOperation(operation.operationId);
    const query: Record<string, unknown> = {};
    for (const [key, value] of url.searchParams) {
      const existing = query[key];
      query[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    }
    const headers: Record<string, unknown> = {};
    for (const p of operation.parameters) if (p.in === 'header' && req.headers[p.name] !== undefined) headers[p.name] = req.headers[p.name];
    const violations: ProxyViolation[] = validator.parameters({ path: { ...match.pathParams }, query, headers }).map((v) => ({ in: 'request' as const, ...v }));
    if (operation.security.length && !req.headers.authorization) {
      violations.push({ in: 'request', field: 'header/authorization', message: `is required (${operation.security.join(' or ')})` });
    }
    if (operation.requestBody) {
      if (body.length === 0) {
        if (operation.requestBody.required) violations.push({ in: 'request', field: 'body', message: 'is required' });
      } else if (!isJson(mediaTypeOf(req.headers['content-type']))) {
        violations.push({ in: 'request', field: 'header/content-type', message: `must be application/json (got ${mediaTypeOf(req.headers['content-type']) || 'none'})` });
      } else {
        try {
          violations.push(...(validator.body?.(JSON.parse(body.toString('utf8'))) ?? []).map((v) => ({ in: 'request' as const, ...v })));
        } catch {
          violations.push({ in: 'request', field: 'body', message: 'is not valid JSON' });
        }
      }
    }
    return { operationId: operation.operationId, violations };
  }

  function checkResponse(operationId: string, status: number, headers: IncomingHttpHeaders, body: Buffer): ProxyViolation[] {
    const mediaType = body.length ? mediaTypeOf(headers['content-type']) : undefined;
    let parsed: unknown;
    if (mediaType && isJson(mediaType)) {
      try {
        parsed = JSON.parse(decode(body, headers['content-encoding'] as string | undefined).toString('utf8'));
      } catch {
        return [{ in: 'response', field: 'body', message: `is not valid JSON although Content-Type is ${mediaType}` }];
      }
    }
    const found = validators.forOperation(operationId).response(status, mediaType, parsed);
    if (found === null) return [{ in: 'response', field: 'status', message: `${status} ${mediaType ?? '(no body)'} is not declared for ${operationId}` }];
    return found.map((v) => ({ in: 'response' as const, ...v }));
  }

  function record(exchange: ProxyExchange): void {
    history.push(exchange);
    if (history.length > 10_000) history.shift();
    for (const v of exchange.violations) {
      const key = `${exchange.operationId ?? exchange.method + ' ' + exchange.path} ${v.in} ${v.field} ${v.message}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const line = { method: exchange.method, path: exchange.path, operationId: exchange.operationId, status: exchange.status };
    if (exchange.violations.length) log?.warn({ ...line, violations: exchange.violations }, `${exchange.violations.length} contract violation(s)`);
    else log?.info(line, 'conforms to the contract');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://proxy.invalid');
    const body = await readAll(req);
    const checked = checkRequest(req, url, body);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    headers.host = upstream.host;
    if (body.length) headers['content-length'] = String(body.length);

    const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders; raw: string[]; body: Buffer }>((resolve, reject) => {
      const outgoing = send(
        { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: req.method, path: basePath + url.pathname + url.search, headers, timeout: options.timeoutMs ?? 30_000 },
        (incoming) => {
          readAll(incoming).then(
            (buffer) => resolve({ status: incoming.statusCode ?? 502, headers: incoming.headers, raw: incoming.rawHeaders, body: buffer }),
            reject,
          );
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error(`upstream did not answer within ${options.timeoutMs ?? 30_000} ms`)));
      outgoing.on('error', reject);
      outgoing.end(body);
    }).catch((error: Error) => error);

    if (answer instanceof Error) {
      const violations = [...checked.violations];
      record({ method: req.method ?? 'GET', path: url.pathname, operationId: checked.operationId, status: 502, violations });
      res.writeHead(502, { 'Content-Type': 'application/json', [VIOLATIONS_HEADER]: headerSafe(JSON.stringify(violations)), [VIOLATIONS_COUNT_HEADER]: String(violations.length) });
      res.end(JSON.stringify({ error: 'upstream unreachable', detail: answer.message }));
      return;
    }

    const violations = [...checked.violations, ...(checked.operationId ? checkResponse(checked.operationId, answer.status, answer.headers, answer.body) : [])];
    record({ method: req.method ?? 'GET', path: url.pathname, operationId: checked.operationId, status: answer.status, violations });

    // Pass the answer through as the upstream sent it (raw header pairs keep order and case);
    // the body was buffered, so it goes out with its exact length instead of chunked.
    const passThrough: [string, string][] = [];
    for (let i = 0; i < answer.raw.length; i += 2) {
      const name = answer.raw[i].toLowerCase();
      if (!HOP_BY_HOP.has(name) && name !== 'content-length') passThrough.push([answer.raw[i], answer.raw[i + 1]]);
    }
    passThrough.push(['Content-Length', String(answer.body.length)]);
    passThrough.push([VIOLATIONS_HEADER, headerSafe(JSON.stringify(violations))]);
    passThrough.push([VIOLATIONS_COUNT_HEADER, String(violations.length)]);
    res.writeHead(answer.status, passThrough.flat());
    res.end(answer.body);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      log?.error({ err: error }, 'proxy failure');
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
    exchanges: () => history,
    summary() {
      const byOperation: ProxySummary['byOperation'] = {};
      let violating = 0;
      let total = 0;
      for (const exchange of history) {
        const key = exchange.operationId ?? `${exchange.method} ${exchange.path}`;
        const entry = (byOperation[key] ??= { requests: 0, violations: 0 });
        entry.requests++;
        entry.violations += exchange.violations.length;
        total += exchange.violations.length;
        if (exchange.violations.length) violating++;
      }
      const top = [...counts].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
      return { requests: history.length, violating, violations: total, byOperation, top };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The summary printed when the proxy stops.
 * @example process.stdout.write(formatProxySummary(proxy.summary()));
 */
export function formatProxySummary(summary: ProxySummary): string {
  const lines = [`${summary.requests} request(s), ${summary.violating} with contract violations (${summary.violations} violation(s) in total)`];
  for (const [operation, entry] of Object.entries(summary.byOperation).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`  ${operation.padEnd(40)} ${String(entry.requests).padStart(5)} request(s) ${String(entry.violations).padStart(5)} violation(s)`);
  }
  if (summary.top.length) {
    lines.push('Violations, most frequent first:');
    for (const { key, count } of summary.top.slice(0, 50)) lines.push(`  ${String(count).padStart(5)}×  ${key}`);
  }
  return `${lines.join('\n')}\n`;
}
