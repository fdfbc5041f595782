import type { TokenService } from '../auth/tokens.js';
import type { ContractGate } from '../contract/gate.js';
import { violationsHeaderValue, VIOLATIONS_HEADER } from '../contract/gate.js';
import { ProblemError } from '../errors/problem.js';
import { authorizationOf, requestState } from '../http/request-state.js';
import { readBody } from '../http/read-request.js';
import type { ApiRequest, ApiResponse, Next } from '../http/types.js';
import { checkAnswer, checkRequest } from '../proxy/validation-proxy.js';
import { forward, passThroughHeaders } from '../proxy/upstream.js';
import { recordedExchangeOf } from '../record/recorder.js';
import type { KeyedRequest } from '../record/exchange-key.js';
import type { RecordedExchange } from '../record/recorded-exchange.js';
import { responseViolationsOf, type ReplaySource } from './replay-source.js';

export interface ReplayAnswerOptions {
  replay: ReplaySource;
  gate: ContractGate;
  tokens: TokenService;
  bodyLimit: number;
}

/**
 * `serve --replay`: a request the recording has an answer for gets that answer — status,
 * headers and body as recorded (secrets shortened), in the order they were recorded for
 * identical requests — before the mock's own steps run: the real service authenticated and
 * rate-limited the recorded request, and a replay changes no state of the mock but the
 * request's sequence position (src/replay/replay-source.ts). Answers carry
 * `X-Shipmock-Source: replay`, and an answer that broke the contract when it was recorded
 * carries the violations it was marked with (X-Shipmock-Violations).
 *
 * A miss (`--on-miss`): `mock` hands the request on to the mock's pipeline (body already read),
 * `fail` answers 501 `replay-miss` naming the request, `proxy` forwards it to the upstream,
 * answers what it answered and records it into the folder.
 */
export function replayAnswer(options: ReplayAnswerOptions) {
  const { replay } = options;
  return async function replayAnswerStep(req: ApiRequest, res: ApiResponse, next: Next) {
    const state = requestState(req);
    const body = req.headers['content-length'] || req.headers['transfer-encoding'] || state.preReadBody ? await readBody(req, options.bodyLimit, state.preReadBody) : Buffer.alloc(0);
    // Read once: a miss the mock answers takes the body from here.
    state.preReadBody = body;
    const route = options.gate.routes.match(state.method, state.pathname);
    const operation = route.kind === 'operation' ? route.operation : undefined;
    const request: KeyedRequest = {
      method: state.method,
      operationId: operation?.operationId,
      path: state.pathname,
      query: state.search.toString(),
      contentType: req.headers['content-type'],
      body,
    };
    const accountId = (route.kind === 'operation' ? route.pathParams['account-id'] : undefined) ?? tokenAccount(req, options.tokens);
    const found = replay.next(request, accountId);
    if (found.exchange) return send(res, state, found.exchange, 'replay');
    if (replay.onMiss === 'mock') return next();
    if (replay.onMiss === 'fail') {
      const target = `${state.method} ${state.pathname}${request.query ? `?${request.query}` : ''}`;
      throw new ProblemError('replay-miss', {
        detail: found.recorded
          ? `The recording's ${found.recorded} answer(s) to ${target} were all given already (--on-miss fail); POST /__admin/reset starts them again`
          : `The recording has no answer to ${target}${operation ? ` (${operation.operationId})` : ''} with this query and body (--on-miss fail)`,
        properties: { request: { method: state.method, path: state.pathname, ...(request.query ? { query: request.query } : {}), ...(operation ? { operationId: operation.operationId } : {}) }, recorded: found.recorded },
      });
    }
    const exchange = await proxied(req, state.url, body, options);
    replay.keep(exchange);
    send(res, state, exchange, 'upstream');
  };
}

/** The account of a request's token, when it is one this mock issued and it is valid. */
function tokenAccount(req: ApiRequest, tokens: TokenService): string | undefined {
  const authorization = authorizationOf(req);
  if (authorization.scheme !== 'bearer' || !authorization.token) return undefined;
  const verified = tokens.verify(authorization.token);
  return verified.ok ? verified.claims.aid : undefined;
}

function send(res: ApiResponse, state: ReturnType<typeof requestState>, exchange: RecordedExchange, source: 'replay' | 'upstream'): void {
  const headers = new Map<string, string[]>();
  for (const [name, value] of exchange.response.headers) {
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection' || lower === 'keep-alive') continue;
    const values = headers.get(lower);
    if (values) values.push(value);
    else headers.set(lower, [value]);
  }
  for (const [name, values] of headers) res.setHeader(name, values.length === 1 ? values[0] : values);
  const violations = responseViolationsOf(exchange);
  if (violations.length) res.setHeader(VIOLATIONS_HEADER, violationsHeaderValue(violations));
  res.setHeader('X-Shipmock-Source', source);
  res.setHeader('Content-Length', String(exchange.response.body.length));
  state.source = source;
  state.responsePayload = exchange.response.body;
  res.writeHead(exchange.response.status);
  res.end(exchange.response.body);
}

/** `--on-miss proxy`: the upstream's answer, checked against the contract like `shipmock record` checks it. */
async function proxied(req: ApiRequest, target: string, body: Buffer, options: ReplayAnswerOptions): Promise<RecordedExchange> {
  const { replay, gate } = options;
  const url = new URL(target, 'http://replay.invalid');
  const startedAt = new Date();
  const started = performance.now();
  const checked = checkRequest(gate, req, url, body);
  const answer = await forward(replay.upstream!, replay.timeoutMs, req, url.pathname + url.search, body).catch((error: Error) => {
    throw new ProblemError('replay-miss', {
      status: 502,
      title: 'No recorded answer, and the upstream could not be reached',
      detail: `${req.method} ${url.pathname} is not in the recording, and --upstream ${replay.upstream!.origin} did not answer it: ${error.message}`,
    });
  });
  const violations = [...checked.violations, ...(checked.operationId ? checkAnswer(gate, checked.operationId, answer) : [])];
  return recordedExchangeOf({
    startedAt,
    durationMs: performance.now() - started,
    method: req.method ?? 'GET',
    target,
    requestHeaders: req.rawHeaders,
    requestBody: body,
    operationId: checked.operationId,
    status: answer.status,
    responseHeaders: passThroughHeaders(answer).flat(),
    responseBody: answer.body,
    violations,
  });
}
