import type { Request, Response } from 'express';
import type { ContractOperation } from '../contract/load-contract.js';
import type { ContractValidators } from '../contract/validators.js';
import { ProblemError, type ProblemBody, type Violation } from '../errors/problem.js';
import { requestState } from './request-state.js';
import type { MockRuntime } from './runtime.js';
import type { OperationResult } from './operation-handler.js';

const PROBLEM_POINTER = '#/components/schemas/Problem';
const PROBLEM_V0_POINTER = '#/components/schemas/ProblemV0';

/** The media type a result is written with (undefined for an empty body). */
function mediaTypeOf(result: OperationResult): string | undefined {
  if (result.raw !== undefined) return result.contentType;
  return result.body === undefined ? undefined : result.contentType ?? 'application/json';
}

/**
 * Checks an operation's result against its declared responses: [] when it conforms, the
 * violations otherwise, null when the status or media type is not declared at all.
 */
export function resultViolations(validators: ContractValidators, operation: ContractOperation, result: OperationResult): Violation[] | null {
  const isRaw = result.raw !== undefined;
  return validators.forOperation(operation.operationId).response(result.status, mediaTypeOf(result), isRaw ? undefined : result.body);
}

/**
 * The one place that writes responses. JSON bodies of contract operations are validated against
 * the operation's declared response first: a handler that answers something the contract does
 * not allow becomes a 500 `response-validation-failed` problem (or a logged warning).
 */
export function createResponder(runtime: MockRuntime) {
  const { validators, logger, options } = runtime;

  function write(res: Response, status: number, contentType: string | undefined, payload: string | Buffer | undefined, headers?: Record<string, string>) {
    if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (status === 500) {
      // Spec, Limits: responses with status 500 carry none of the rate-limit headers.
      res.removeHeader('X-RateLimit-Limit');
      res.removeHeader('X-RateLimit-Remaining');
      res.removeHeader('X-RateLimit-Reset');
    }
    if (payload === undefined) {
      res.writeHead(status);
      res.end();
      return;
    }
    res.writeHead(status, { 'Content-Type': contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(payload) });
    res.end(payload);
  }

  /** Writes a problem; its body is checked against the Problem schema like any other response. */
  function sendProblem(req: Request, res: Response, error: ProblemError, body?: ProblemBody) {
    const state = requestState(req);
    const problem = body ?? error.toBody(requestState(req).url);
    state.problem = problem.type;
    const pointer = problem.errors ? PROBLEM_V0_POINTER : PROBLEM_POINTER;
    const violations = options.responseValidation === 'off' ? [] : validators.validate(pointer, problem);
    if (violations.length) {
      logger.error({ requestId: state.requestId, violations }, 'problem body violates the contract');
    }
    write(res, problem.status, 'application/problem+json', JSON.stringify(problem), error.init.headers);
  }

  function contractViolation(req: Request, res: Response, detail: string, violations: Violation[]) {
    const state = requestState(req);
    logger.error({ requestId: state.requestId, operationId: state.operation?.operationId, violations }, detail);
    sendProblem(req, res, new ProblemError('response-validation-failed', { detail, violations }));
  }

  /** Writes an operation's result after checking it against the contract. */
  function sendResult(req: Request, res: Response, result: OperationResult) {
    const state = requestState(req);
    const operation = state.operation!;
    const isRaw = result.raw !== undefined;
    const mediaType = mediaTypeOf(result);
    if (options.responseValidation !== 'off') {
      const violations = resultViolations(validators, operation, result);
      const detail =
        violations === null
          ? `${operation.operationId} answered ${result.status} ${mediaType ?? '(no body)'}, which the contract does not declare`
          : violations.length
            ? `${operation.operationId} answered a ${result.status} body that violates the contract`
            : undefined;
      if (detail) {
        const found = violations ?? [{ field: 'status', message: `${result.status} ${mediaType ?? ''} is not declared`.trim() }];
        if (options.responseValidation === 'error') return contractViolation(req, res, detail, found);
        logger.warn({ requestId: state.requestId, operationId: operation.operationId, violations: found }, detail);
      }
    }
    const payload = isRaw ? result.raw : result.body === undefined ? undefined : JSON.stringify(result.body);
    write(res, result.status, mediaType, payload, result.headers);
  }

  return { sendResult, sendProblem, write };
}

export type Responder = ReturnType<typeof createResponder>;
