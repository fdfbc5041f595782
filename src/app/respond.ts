import type { ContractGate } from '../contract/gate.js';
import { ProblemError, type ProblemBody, type Violation } from '../errors/problem.js';
import { requestState, type RequestState } from '../http/request-state.js';
import type { Answer, ApiRequest, ApiResponse } from '../http/types.js';
import type { Logger } from '../logging/logger.js';
import { decideAnswer } from './answer-effects.js';
import type { OperationResult } from '../resources/shared/operation-handler.js';
import { setAnswerHeaders } from './response-headers.js';

const PROBLEM_POINTER = '#/components/schemas/Problem';
const PROBLEM_V0_POINTER = '#/components/schemas/ProblemV0';

export interface ResponderOptions {
  gate: ContractGate;
  logger: Logger;
  /** error: an answer outside the contract becomes a 500 problem; warn: it is logged; off: not checked. */
  responseValidation: 'error' | 'warn' | 'off';
}

/** The media type a result is written with (undefined for an empty body). */
function resultMediaType(result: OperationResult): string | undefined {
  if (result.raw !== undefined) return result.contentType;
  return result.body === undefined ? undefined : (result.contentType ?? 'application/json');
}

/** The answer a handler's result stands for. */
export function answerOf(result: OperationResult): Answer {
  const contentType = resultMediaType(result);
  if (result.raw !== undefined) return { status: result.status, contentType, payload: result.raw, headers: result.headers };
  if (result.body === undefined) return { status: result.status, headers: result.headers };
  return { status: result.status, contentType, payload: JSON.stringify(result.body), json: result.body, headers: result.headers };
}

/**
 * Checks an operation's result against its declared responses (the contract gate): [] when it
 * conforms. Raw answers (PDF, PNG, ZPL) are checked for their status and media type only.
 */
export function resultViolations(gate: ContractGate, operationId: string, result: OperationResult): { violations: Violation[]; undeclared: boolean } {
  return gate.checkAnswer(operationId, { status: result.status, mediaType: resultMediaType(result), body: result.raw === undefined ? result.body : undefined });
}

/**
 * The one place that writes API answers. Results of contract operations are checked against the
 * operation's declared responses first: one the contract does not allow becomes a 500
 * `response-validation-failed` problem (or a logged warning). Then every answer gets its
 * headers (response-headers.ts) and the scenario effects on answers (answer-effects.ts), in
 * that order of decision, and only then is a byte written.
 */
export function createResponder(options: ResponderOptions) {
  const { gate, logger, responseValidation } = options;

  /** Writes a composed answer: decides its headers and scenario effects, then sends it. */
  function send(req: ApiRequest, res: ApiResponse, answer: Answer): void {
    const state = requestState(req);
    if (!state.answerEffects) return write(res, state, answer);
    const decision = decideAnswer(answer, state, state.answerEffects, gate);
    if (decision.kind === 'destroy') res.destroy();
    else write(res, state, decision.answer, decision.kind === 'truncate');
  }

  /** Writes an answer whose headers and effects are decided; `truncate`: half the body, then the connection goes. */
  function write(res: ApiResponse, state: RequestState, answer: Answer, truncate = false): void {
    setAnswerHeaders(res, state, answer);
    if (answer.payload === undefined) {
      res.writeHead(answer.status);
      res.end();
      return;
    }
    state.responsePayload = answer.payload;
    res.writeHead(answer.status, { 'Content-Type': answer.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(answer.payload) });
    if (!truncate) {
      res.end(answer.payload);
      return;
    }
    // The client sees a cut-off body.
    const body = Buffer.from(answer.payload);
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
  }

  /** Writes a problem; its body is checked against the Problem schema like any other answer. */
  function sendProblem(req: ApiRequest, res: ApiResponse, error: ProblemError, body?: ProblemBody): void {
    const state = requestState(req);
    const problem = body ?? error.toBody(state.url);
    state.problem = problem.type;
    const pointer = problem.errors ? PROBLEM_V0_POINTER : PROBLEM_POINTER;
    const violations = responseValidation === 'off' ? [] : gate.validators.validate(pointer, problem);
    if (violations.length) logger.error({ requestId: state.requestId, violations }, 'problem body violates the contract');
    send(req, res, { status: problem.status, contentType: 'application/problem+json', payload: JSON.stringify(problem), json: problem, headers: error.init.headers });
  }

  /** Writes an operation's result after checking it against the contract. */
  function sendResult(req: ApiRequest, res: ApiResponse, result: OperationResult): void {
    const state = requestState(req);
    const operationId = state.operation!.operationId;
    if (responseValidation !== 'off') {
      const { violations, undeclared } = resultViolations(gate, operationId, result);
      if (violations.length) {
        state.responseViolations = violations;
        const detail = undeclared
          ? `${operationId} answered ${result.status} ${resultMediaType(result) ?? '(no body)'}, which the contract does not declare`
          : `${operationId} answered a ${result.status} body that violates the contract`;
        if (responseValidation === 'error') {
          logger.error({ requestId: state.requestId, operationId, violations }, detail);
          return sendProblem(req, res, new ProblemError('response-validation-failed', { detail, violations }));
        }
        logger.warn({ requestId: state.requestId, operationId, violations }, detail);
      }
    }
    send(req, res, answerOf(result));
  }

  /**
   * Writes a recorded answer (a scenario's respond effect with a body): as recorded, whether or
   * not it keeps to the contract — replaying the real service's drift is the point — but checked
   * all the same, so the journal's verdict and the log say when it does not.
   */
  function sendRecorded(req: ApiRequest, res: ApiResponse, answer: Answer): void {
    const state = requestState(req);
    const operationId = state.operation?.operationId;
    if (operationId && responseValidation !== 'off') {
      const json = answer.contentType !== undefined && /[/+]json\b/i.test(answer.contentType);
      const { violations } = gate.checkAnswer(operationId, { status: answer.status, mediaType: answer.payload === undefined ? undefined : answer.contentType, body: json ? answer.json : undefined });
      if (violations.length) {
        state.responseViolations = violations;
        logger.warn({ requestId: state.requestId, operationId, violations }, `${operationId}: a recorded answer outside the contract, served as recorded`);
      }
    }
    send(req, res, answer);
  }

  return { send, sendResult, sendProblem, sendRecorded };
}

export type Responder = ReturnType<typeof createResponder>;
