import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClock } from '../../clock/clock.js';
import { loadCompiledContract } from '../../contract/compiled-contract.js';
import { createContractGate } from '../../contract/gate.js';
import { createValidators } from '../../contract/validators.js';
import { createRouteMatcher } from '../../contract/route-matcher.js';
import type { ProblemError } from '../../errors/problem.js';
import { requestState } from '../../http/request-state.js';
import { createLogger } from '../../logging/logger.js';
import { createRandom } from '../../random/random.js';
import { createRateLimiter } from '../../rate-limit/rate-limiter.js';
import { createScenarioEngine } from '../../scenarios/engine.js';
import { createScenarioLoader } from '../../scenarios/scenario-file.js';
import { createTokenRevocations } from '../../scenarios/token-revocations.js';
import { createResponder } from '../respond.js';
import { requestId } from './request-id.js';
import { scenarioFaults, scenarioNames } from './scenario-faults.js';

const { contract, schemas } = loadCompiledContract();
const routes = createRouteMatcher(contract.operations);
const logger = createLogger({ level: 'silent', format: 'json' });
const started = requestId({ logger, now: () => 0 });
const responder = createResponder({ gate: createContractGate({ contract, validators: createValidators(contract, schemas), routes }), logger, responseValidation: 'error' });

/** The request-phase step over a real scenario engine; every request comes from the address 127.0.0.1 (not verified). */
function faults() {
  const clock = createClock({ mode: 'manual' });
  const engine = createScenarioEngine({ clock, random: createRandom(1), loader: createScenarioLoader() });
  const step = scenarioFaults({
    engine,
    revocations: createTokenRevocations(clock),
    routes,
    limiter: createRateLimiter({ clock, limit: 100, windowMs: 60_000 }),
    callers: { identify: () => ({ key: 'ip:127.0.0.1', verified: false }) },
    now: clock.now,
    responder,
    phase: 'request',
  });
  const send = async (url: string, headers: Record<string, string> = {}) => {
    const req = Object.assign(new IncomingMessage(new Socket()), { method: 'GET', url, headers });
    const res = new ServerResponse(req);
    started(req, res, () => {});
    let outcome: 'next' | 'stopped' | ProblemError = 'stopped';
    try {
      await step(req, res, () => (outcome = 'next'));
    } catch (error) {
      outcome = error as ProblemError;
    }
    return { outcome, state: requestState(req), destroyed: req.socket.destroyed };
  };
  return { engine, send };
}

const scenario = (name: string, effect: object, path = '/v1/addresses') => ({ name, rules: [{ match: { path }, effect }] });

describe('scenarioFaults step', () => {
  it('goes on at once when no scenario acts on requests and none is named', async () => {
    expect((await faults().send('/v1/addresses')).outcome).toBe('next');
  });

  it('refuses X-Shipmock-Scenario naming no usable scenario with 400, naming the header', async () => {
    const { outcome } = await faults().send('/v1/addresses', { 'x-shipmock-scenario': 'no-such-scenario' });
    expect(outcome).toMatchObject({ slug: 'validation-error', status: 400, init: { violations: [{ field: 'header/x-shipmock-scenario', message: 'names no usable scenario (no-such-scenario)' }] } });
  });

  it("injects a scenario's problem for a matching request, recording the hit and the operation, and lets other paths through", async () => {
    const { engine, send } = faults();
    engine.activate(scenario('down', { respond: { status: 503 } }));
    const { outcome, state } = await send('/v1/addresses');
    expect(outcome).toMatchObject({ slug: 'internal-error', status: 503, init: { headers: { 'Retry-After': '1' }, detail: 'Injected by scenario down (rule 0)' } });
    expect(state.scenarioHits).toEqual(['down/rule 0']);
    expect(state.operation?.operationId).toBe('listAddresses');
    expect((await send('/v1/carriers')).outcome).toBe('next');
  });

  it('resets the connection for reset: before, and records effects on the answer for the responder', async () => {
    const { engine, send } = faults();
    engine.activate(scenario('cut', { reset: 'before' }));
    expect(await send('/v1/addresses')).toMatchObject({ outcome: 'stopped', destroyed: true });
    engine.deactivate('cut');
    engine.activate(scenario('damaged', { corrupt: 'truncate', validation: 'strict' }));
    const { outcome, state } = await send('/v1/addresses');
    expect(outcome).toBe('next');
    expect(state.answerEffects).toEqual({ strict: true, corrupt: 'truncate', drop: false });
  });

  it("counts a request in a scenario's own rate limit window instead of the mock's", async () => {
    const { engine, send } = faults();
    engine.activate(scenario('burst', { rateLimit: { limit: 1, window: 'PT30S' } }));
    expect((await send('/v1/addresses')).state.rateLimitOverride).toMatchObject({ limit: 1, remaining: 0, limited: false });
    expect((await send('/v1/addresses')).state.rateLimitOverride).toMatchObject({ limit: 1, limited: true });
  });

  it('reads X-Shipmock-Scenario as one name or a comma-separated list', () => {
    expect(scenarioNames(' a , b,,c ')).toEqual(['a', 'b', 'c']);
    expect(scenarioNames(['a', 'b'])).toEqual(['a', 'b']);
    expect(scenarioNames(undefined)).toEqual([]);
  });
});
