import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadCompiledContract } from '../../contract/compiled-contract.js';
import { createContractGate } from '../../contract/gate.js';
import { createRouteMatcher } from '../../contract/route-matcher.js';
import { createValidators } from '../../contract/validators.js';
import { requestState } from '../../http/request-state.js';
import { createLogger } from '../../logging/logger.js';
import { requestId } from './request-id.js';
import { routeMatch } from './route-match.js';

const { contract, schemas } = loadCompiledContract();
const step = routeMatch({ gate: createContractGate({ contract, validators: createValidators(contract, schemas), routes: createRouteMatcher(contract.operations) }) });
const started = requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 });

function match(method: string, url: string) {
  const req = Object.assign(new IncomingMessage(new Socket()), { method, url, headers: {} });
  const res = new ServerResponse(req);
  started(req, res, () => {});
  let went = false;
  step(req, res, () => (went = true));
  return { went, state: requestState(req) };
}

describe('routeMatch step', () => {
  it('puts the operation and its path parameters on the request state (the query is parsed later)', () => {
    const { went, state } = match('GET', '/v1/addresses/9c5f70b8-3d0e-4bde-9e87-1f2a3b4c5d67?fields=all');
    expect(went).toBe(true);
    expect(state.operation?.operationId).toBe('getAddress');
    expect(state.params).toEqual({ path: { 'address-id': '9c5f70b8-3d0e-4bde-9e87-1f2a3b4c5d67' }, query: {}, headers: {} });
  });

  it('throws 404 route-not-found for an unknown path and 405 for an undeclared method, leaving the state without an operation', () => {
    expect(() => match('GET', '/v1/nope')).toThrow(expect.objectContaining({ slug: 'route-not-found', status: 404 }));
    expect(() => match('PATCH', '/v1/addresses')).toThrow(expect.objectContaining({ status: 405 }));
  });
});
