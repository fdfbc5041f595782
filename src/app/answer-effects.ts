import { violationsHeaderValue, VIOLATIONS_HEADER, type ContractGate } from '../contract/gate.js';
import { ProblemError, type Violation } from '../errors/problem.js';
import type { AnswerEffects, RequestState } from '../http/request-state.js';
import type { Answer } from '../http/types.js';

/** What the responder does with a composed answer once the scenario effects had their say. */
export type AnswerDecision =
  /** Write it (possibly changed). */
  | { kind: 'write'; answer: Answer }
  /** Send the headers and half of the body, then close the connection. */
  | { kind: 'truncate'; answer: Answer }
  /** Close the connection without a byte of answer. */
  | { kind: 'destroy' };

/**
 * Applies the scenario effects that act on answers (set by the scenario step, request-state.ts
 * AnswerEffects) to an answer BEFORE it is written: a dropped answer, strict validation (the
 * violations echoed in X-Shipmock-Violations; an answer outside the contract becomes a 500
 * problem), a damaged body. Pure: the responder writes what this decides.
 */
export function decideAnswer(answer: Answer, state: RequestState, effects: AnswerEffects, gate: ContractGate): AnswerDecision {
  if (effects.drop) return { kind: 'destroy' };
  const checked = effects.strict ? strictAnswer(answer, state, gate) : answer;
  return damage(checked, effects.corrupt);
}

/** A strict answer: violations echoed; an answer that breaks the contract becomes a 500. */
function strictAnswer(answer: Answer, state: RequestState, gate: ContractGate): Answer {
  const contentType = answer.contentType ?? '';
  const violations: (Violation & { in: 'request' | 'response' })[] = [];
  if (contentType === 'application/problem+json' && answer.status === 400) {
    const found = (answer.json as { properties?: { violations?: Violation[] } } | undefined)?.properties?.violations ?? [];
    for (const v of found) violations.push({ in: 'request', ...v });
  }
  const operation = state.operation;
  if (operation && !contentType.endsWith('problem+json')) {
    const isJson = contentType.endsWith('json');
    const found = gate.checkAnswer(operation.operationId, {
      status: answer.status,
      mediaType: answer.payload === undefined ? undefined : contentType || undefined,
      body: isJson ? answer.json : undefined,
    });
    for (const v of found.violations) violations.push({ in: 'response', ...v });
  }
  const headers = { ...answer.headers, [VIOLATIONS_HEADER]: violationsHeaderValue(violations) };
  if (!violations.some((v) => v.in === 'response')) return { ...answer, headers };
  state.responseViolations = violations.filter((v) => v.in === 'response').map(({ field, message }) => ({ field, message }));
  const problem = new ProblemError('response-validation-failed', {
    detail: `${operation!.operationId} answered outside the contract (validation: strict)`,
    violations: state.responseViolations,
  }).toBody(state.url);
  return { status: 500, contentType: 'application/problem+json', payload: JSON.stringify(problem), json: problem, headers };
}

function damage(answer: Answer, corrupt: AnswerEffects['corrupt']): AnswerDecision {
  if (!corrupt) return { kind: 'write', answer };
  const body = answer.payload === undefined ? undefined : Buffer.from(answer.payload);
  // An empty answer has nothing to cut: the connection drops instead.
  if (!body || body.length === 0) return { kind: 'destroy' };
  if (corrupt === 'truncate') return { kind: 'truncate', answer: { ...answer, payload: body } };
  const cut = body.subarray(0, Math.max(1, Math.floor(body.length / 2)));
  return { kind: 'write', answer: { ...answer, payload: Buffer.concat([cut, Buffer.from('\u0000<!-- corrupted by shipmock -->')]), json: undefined } };
}
