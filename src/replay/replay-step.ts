import type { TokenService } from '../auth/tokens.js';
import type { ContractGate } from '../contract/gate.js';
import { violationsHeaderValue, VIOLATIONS_HEADER } from '../contract/gate.js';
import { ProblemError } from '../errors/problem.js';
import { authorizationOf, requestState, type RequestState } from '../http/request-state.js';
import { readBody } from '../http/read-request.js';
import type { ApiRequest, ApiResponse, Next } from '../http/types.js';
import { checkAnswer, checkRequest } from '../proxy/validation-proxy.js';
import { forward, passThroughHeaders } from '../proxy/upstream.js';
import { recordedExchangeOf } from '../record/recorder.js';
import type { KeyedRequest } from '../record/exchange-key.js';
import type { Exchange } from '../recording/index.js';
import type { ReplayAnswer } from './replay-index.js';
import type { ReplaySource } from './replay-source.js';
import { REDACTED_MARK } from '../util/redact.js';

export interface ReplayAnswerOptions {
  replay: ReplaySource;
  gate: ContractGate;
  tokens: TokenService;
  bodyLimit: number;
}

/**
 * `serve --replay`: a request the recording has an answer for gets that answer — status,
 * headers and body as recorded (secrets shortened), the recorded answers of identical requests
 * in their order — before the mock's own steps run: the real service authenticated and
 * rate-limited the recorded request, and a replay changes no state of the mock but the
 * request's sequence position (src/replay/replay-source.ts). Answers carry
 * `X-Shipmock-Source: replay`; one whose rule was marked as breaking the contract carries the
 * violations it was recorded with in X-Shipmock-Violations.
 *
 * A miss (`--on-miss`): `mock` hands the request on to the mock's pipeline (its body, read here,
 * is reused), `fail` answers 501 `replay-miss` naming the request, `proxy` forwards it to the
 * upstream, answers what the upstream answered (`X-Shipmock-Source: upstream`) and records it.
 */
export function replayAnswer(options: ReplayAnswerOptions) {
  const { replay } = options;
  return async function replayAnswerStep(req: ApiRequest, res: ApiResponse, next: Next) {
    const state = requestState(req);
    const hasBody = state.preReadBody !== undefined || req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    const body = hasBody ? await readBody(req, options.bodyLimit, state.preReadBody) : Buffer.alloc(0);
    // Read once: a miss the mock answers takes the body from here.
    if (hasBody) state.preReadBody = body;
    const request: KeyedRequest = { method: state.method, path: state.pathname, search: state.search.toString(), contentType: req.headers['content-type'], body };
    const route = options.gate.routes.match(state.method, state.pathname);
    const accountId = (route.kind === 'operation' ? route.pathParams['account-id'] : undefined) ?? tokenAccount(req, options.tokens);
    const found = replay.next(request, accountId);
    if (found.answer) return send(res, state, found.answer, 'replay');
    if (replay.onMiss === 'mock') return next();
    const query = state.search.toString();
    const target = `${state.method} ${state.pathname}${query ? `?${query}` : ''}`;
    const operationId = route.kind === 'operation' ? route.operation.operationId : undefined;
    if (replay.onMiss === 'fail') {
      throw new ProblemError('replay-miss', {
        detail: found.recorded
          ? `The recording's ${found.recorded} answer(s) to ${target} were all given already (--on-miss fail); POST /__admin/reset starts them again`
          : `The recording has no answer to ${target}${operationId ? ` (${operationId})` : ''} with this query and body (--on-miss fail)`,
        properties: { request: { method: state.method, path: state.pathname, ...(query ? { query } : {}), ...(operationId ? { operationId } : {}) }, recorded: found.recorded },
      });
    }
    const exchange = await proxied(req, state.url, body, options);
    replay.keep(exchange, accountId);
    send(res, state, { status: exchange.response.status, headers: exchange.response.headers, payload: exchange.response.body }, 'upstream');
  };
}

/** The account of a request's token, when it is one this mock issued and it is valid. */
function tokenAccount(req: ApiRequest, tokens: TokenService): string | undefined {
  const authorization = authorizationOf(req);
  if (authorization.scheme !== 'bearer' || !authorization.token) return undefined;
  const verified = tokens.verify(authorization.token);
  return verified.ok ? verified.claims.aid : undefined;
}

// The mock frames the answer itself.
const FRAMING = /^(content-length|transfer-encoding|connection|keep-alive)$/i;
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;

/**
 * A shortened secret as a replay sends it: its mark spelled `...` instead of `…` (U+2026). A
 * header cannot carry `…` at all (Node refuses to write it, fetch to send it), so a replayed
 * token would be one no client can put in its next request's Authorization header.
 */
const asciiMark = (text: string) => text.replaceAll(REDACTED_MARK, '...');

/** A JSON answer's shortened secrets (strings ending in the mark) with the mark in ASCII; other bodies as recorded. */
function replayedPayload(answer: ReplayAnswer): Buffer | string {
  const payload = answer.payload ?? '';
  if (typeof payload !== 'string' || !JSON_TYPE.test(answer.contentType ?? '') || !payload.includes(REDACTED_MARK)) return payload;
  return payload.replaceAll(`${REDACTED_MARK}"`, '..."');
}

function send(res: ApiResponse, state: RequestState, answer: ReplayAnswer, source: 'replay' | 'upstream'): void {
  for (const [name, value] of Object.entries(answer.headers ?? {})) {
    if (FRAMING.test(name)) continue;
    res.setHeader(name, name.toLowerCase() === 'set-cookie' ? value.split('\n').map(asciiMark) : asciiMark(value));
  }
  if (answer.contentType) res.setHeader('Content-Type', answer.contentType);
  if (answer.violations?.length) res.setHeader(VIOLATIONS_HEADER, violationsHeaderValue(answer.violations));
  res.setHeader('X-Shipmock-Source', source);
  const payload = source === 'replay' ? replayedPayload(answer) : (answer.payload ?? '');
  res.setHeader('Content-Length', String(Buffer.byteLength(payload)));
  state.source = source;
  state.responsePayload = payload;
  res.writeHead(answer.status);
  res.end(payload);
}

/** `--on-miss proxy`: the upstream's answer, checked against the contract as `shipmock record` checks it. */
async function proxied(req: ApiRequest, target: string, body: Buffer, options: ReplayAnswerOptions): Promise<Exchange> {
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
  return recordedExchangeOf(
    {
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
    },
    replay.upstream!.origin,
  );
}
