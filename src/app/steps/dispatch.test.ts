import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ContractOperation } from '../../contract/load-contract.js';
import { requestState } from '../../http/request-state.js';
import { createLogger } from '../../logging/logger.js';
import type { PrismFallback } from '../../prism/prism-fallback.js';
import type { CheckedContext, HandlerMap, OperationResult } from '../../resources/shared/operation-handler.js';
import type { ScenarioEngine } from '../../scenarios/engine.js';
import type { Responder } from '../respond.js';
import { dispatch, type DispatchOptions } from './dispatch.js';
import { requestId } from './request-id.js';

const started = requestId({ logger: createLogger({ level: 'silent', format: 'json' }), now: () => 0 });

/** Scenarios with domain rules that report `hits` for whatever the handler does. */
const scenariosHitting = (hits: string[]) =>
  ({ hasDomainRules: () => hits.length > 0, collectHits: async (fn: () => unknown) => ({ outcome: { value: await fn() }, hits }) }) as unknown as ScenarioEngine;

/** Dispatches one checked request for `operationId`; what the responder was given and the request state after. */
async function run(method: string, operationId: string, options: Partial<DispatchOptions>) {
  const results: OperationResult[] = [];
  const responder = { sendResult: (_req: unknown, _res: unknown, result: OperationResult) => void results.push(result) } as Responder;
  const req = Object.assign(new IncomingMessage(new Socket()), { method, url: '/v1/addresses', headers: { 'x-trace': 't1' } });
  const res = new ServerResponse(req);
  started(req, res, () => {});
  Object.assign(requestState(req), {
    operation: { operationId } as ContractOperation,
    principal: { via: 'token', level: 'ACCOUNT', accountId: 'a1', clientId: 'c' },
    params: { path: {}, query: { limit: 2 }, headers: {} },
    body: { name: 'Erika' },
  });
  const prism = { answer: async () => ({ status: 200, body: { from: 'prism' } }) } as unknown as PrismFallback;
  await dispatch({ handlers: {}, unhandled: 'prism', prism, responder, scenarios: scenariosHitting([]), ...options })(req, res, () => {});
  return { results, state: requestState(req) };
}

describe('dispatch step', () => {
  it('runs the stateful handler with the checked request and hands its result to the responder', async () => {
    let seen: CheckedContext | undefined;
    const handlers = { listAddresses: (context: CheckedContext) => ((seen = context), { status: 200, body: { items: [] } }) } as unknown as HandlerMap;
    const { results, state } = await run('GET', 'listAddresses', { handlers });
    expect(results).toEqual([{ status: 200, body: { items: [] } }]);
    expect(seen).toMatchObject({ principal: { accountId: 'a1' }, query: { limit: 2 }, body: { name: 'Erika' }, requestId: state.requestId });
    expect(state.source).toBeUndefined();
  });

  it('keeps the domain rules that fired while a changing request ran, for the journal', async () => {
    const handlers = { createAddress: () => ({ status: 201, body: { id: 'x' } }) } as unknown as HandlerMap;
    expect((await run('POST', 'createAddress', { handlers, scenarios: scenariosHitting(['carrier-outage/1']) })).state.domainHits).toEqual(['carrier-outage/1']);
    expect((await run('GET', 'createAddress', { handlers, scenarios: scenariosHitting(['carrier-outage/1']) })).state.domainHits).toBeUndefined();
  });

  it('answers an operation without a handler from Prism (marked as its source), or 501 with unhandled=error', async () => {
    const { results, state } = await run('GET', 'getZone', {});
    expect(results).toEqual([{ status: 200, body: { from: 'prism' } }]);
    expect(state.source).toBe('prism');
    await expect(run('GET', 'getZone', { unhandled: 'error' })).rejects.toMatchObject({ slug: 'not-implemented', message: 'getZone has no stateful handler and unhandled=error' });
  });
});
