import { describe, expect, it } from 'vitest';
import { createClock } from '../clock/clock.js';
import { createRandom } from '../random/random.js';
import { createScenarioEngine } from './engine.js';
import type { Rule } from './model.js';
import type { RequestFacts } from './rule-matcher.js';
import { createScenarioLoader } from './scenario-file.js';

function setup(seed = 1) {
  const clock = createClock({ mode: 'manual' });
  const engine = createScenarioEngine({ clock, random: createRandom(seed), loader: createScenarioLoader() });
  return { clock, engine };
}

const request = (overrides: Partial<RequestFacts> = {}): RequestFacts => ({ method: 'GET', path: '/v1/addresses', headers: {}, ...overrides });
const respond = { respond: { status: 503 } };

/** Which of n identical requests a single-rule scenario fires on (1-based). */
function firings(rule: Rule, n: number, options: { seed?: number; between?: (clock: ReturnType<typeof createClock>) => void } = {}): number[] {
  const { clock, engine } = setup(options.seed);
  engine.activate({ name: 't', rules: [rule] });
  const out: number[] = [];
  for (let i = 1; i <= n; i++) {
    if (engine.evaluateRequest(request(), 'request').length) out.push(i);
    options.between?.(clock);
  }
  return out;
}

describe('when', () => {
  it.each<[string, Rule, number[]]>([
    ['always', { effect: respond }, [1, 2, 3, 4, 5, 6]],
    ['first N (times)', { when: { times: 2 }, effect: respond }, [1, 2]],
    ['after N', { when: { after: 4 }, effect: respond }, [5, 6]],
    ['every k-th', { when: { every: 3 }, effect: respond }, [3, 6]],
    ['after N, every k-th, at most M times', { when: { after: 1, every: 2, times: 1 }, effect: respond }, [3]],
    ['fail twice, then succeed (sequence)', { sequence: [respond, respond, 'pass'] }, [1, 2]],
    ['a repeated sequence', { sequence: ['pass', respond], repeat: true }, [2, 4, 6]],
  ])('%s', (_label, rule, expected) => {
    expect(firings(rule, 6)).toEqual(expected);
  });

  it('draws probabilities from the seeded stream: the same seed fires on the same requests', () => {
    const rule: Rule = { when: { probability: 0.3 }, effect: respond };
    const a = firings(rule, 200, { seed: 5 });
    expect(firings(rule, 200, { seed: 5 })).toEqual(a);
    expect(firings(rule, 200, { seed: 6 })).not.toEqual(a);
    expect(a.length).toBeGreaterThan(35);
    expect(a.length).toBeLessThan(85);
  });

  it('acts only within its window of virtual time (relative to activation)', () => {
    const rule: Rule = { when: { from: 'PT1M', until: 'PT3M' }, effect: respond };
    expect(firings(rule, 5, { between: (clock) => clock.advance(60_000) })).toEqual([2, 3]);
  });

  it('accepts absolute windows', () => {
    const rule: Rule = { when: { until: '2026-01-01T00:00:01Z' }, effect: respond };
    expect(firings(rule, 3, { between: (clock) => clock.advance(1000) })).toEqual([1]);
  });
});

describe('matching and scope', () => {
  it('matches method, path glob, operationId, headers (exact or /regex/) and body fields', () => {
    const { engine } = setup();
    engine.activate({
      name: 'm',
      rules: [
        { match: { method: 'POST', path: '/v1/shipment-bookings/**', operationId: 'createShipmentBooking', headers: { 'x-test': '/^case-\\d+$/' } }, effect: respond },
        { match: { body: { reference: 'FAIL-*', 'parcels.0.weight': 30 } }, effect: respond },
      ],
    });
    const booking = request({ method: 'POST', path: '/v1/shipment-bookings', operationId: 'createShipmentBooking', headers: { 'x-test': 'case-7' } });
    expect(engine.evaluateRequest(booking, 'request')).toHaveLength(1);
    expect(engine.evaluateRequest({ ...booking, headers: { 'x-test': 'case-x' } }, 'request')).toHaveLength(0);
    expect(engine.evaluateRequest({ ...booking, method: 'GET' }, 'request')).toHaveLength(0);
    expect(engine.evaluateRequest(request({ body: { reference: 'FAIL-1', parcels: [{ weight: 30 }] } }), 'body')).toHaveLength(1);
    expect(engine.evaluateRequest(request({ body: { reference: 'OK-1', parcels: [{ weight: 30 }] } }), 'body')).toHaveLength(0);
    expect(engine.hasRequestRules('body')).toBe(true);
  });

  it('keeps an account-scoped activation to that account, with its own counters', () => {
    const { engine } = setup();
    engine.activate({ name: 's', rules: [{ when: { times: 1 }, effect: respond }] }, { accountId: 'a' });
    engine.activate({ name: 's', rules: [{ when: { times: 1 }, effect: respond }] }, { accountId: 'b' });
    expect(engine.evaluateRequest(request({ accountId: 'c' }), 'request')).toHaveLength(0);
    expect(engine.evaluateRequest(request({ accountId: 'a' }), 'request')).toHaveLength(1);
    expect(engine.evaluateRequest(request({ accountId: 'a' }), 'request')).toHaveLength(0);
    expect(engine.evaluateRequest(request({ accountId: 'b' }), 'request')).toHaveLength(1);
    expect(engine.list().map((a) => [a.accountId, a.hits])).toEqual([['a', 1], ['b', 1]]);
    expect(engine.deactivate('s', 'a')).toBe(1);
    expect(engine.list().map((a) => a.accountId)).toEqual(['b']);
  });

  it('keeps header activations per caller across requests', () => {
    const { engine } = setup();
    engine.activate({ name: 'twice', rules: [{ when: { times: 2 }, effect: respond }] }, { accountId: 'nobody' });
    const header = (scope: string) => ({ names: ['twice'], scope });
    expect(engine.evaluateRequest(request(), 'request', header('x'))).toHaveLength(1);
    expect(engine.evaluateRequest(request(), 'request', header('y'))).toHaveLength(1);
    expect(engine.evaluateRequest(request(), 'request', header('x'))).toHaveLength(1);
    expect(engine.evaluateRequest(request(), 'request', header('x'))).toHaveLength(0);
  });

  it('gives domain moments the first firing rule of their kind, matched by account and carrier', () => {
    const { engine } = setup();
    engine.activate({ name: 'c', rules: [{ match: { carrier: 'DPD' }, when: { times: 1 }, effect: { carrier: { outcome: 'FAIL' } } }] });
    expect(engine.evaluate('carrier', { accountId: 'a', carrierCode: 'UPS' })).toBeUndefined();
    expect(engine.evaluate('carrier', { accountId: 'a', carrierCode: 'dpd' })?.effect.carrier?.outcome).toBe('FAIL');
    expect(engine.evaluate('carrier', { accountId: 'a', carrierCode: 'DPD' })).toBeUndefined();
    expect(engine.evaluate('tracker', { accountId: 'a' })).toBeUndefined();
  });
});

describe('latency', () => {
  it('samples fixed, uniform and normal latencies from the rule stream', () => {
    const { engine } = setup();
    engine.activate({
      name: 'l',
      rules: [
        { match: { path: '/fixed' }, effect: { latency: 'PT0.25S' } },
        { match: { path: '/uniform' }, effect: { latency: { min: 100, max: 200 } } },
        { match: { path: '/normal' }, effect: { latency: { mean: 500, stddev: 50 } } },
      ],
    });
    const sample = (path: string) => engine.evaluateRequest(request({ path }), 'request')[0].latencyMs;
    expect(sample('/fixed')).toBe(250);
    const uniform = Array.from({ length: 50 }, () => sample('/uniform'));
    expect(Math.min(...uniform)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...uniform)).toBeLessThanOrEqual(200);
    const normal = Array.from({ length: 200 }, () => sample('/normal'));
    const mean = normal.reduce((a, b) => a + b, 0) / normal.length;
    expect(mean).toBeGreaterThan(480);
    expect(mean).toBeLessThan(520);
  });
});

describe('reset and snapshots', () => {
  it('reset drops API activations and restarts the counters of start activations', () => {
    const { engine } = setup();
    engine.activate({ name: 'from-start', rules: [{ when: { times: 1 }, effect: respond }] }, { source: 'start' });
    engine.activate({ name: 'from-api', rules: [{ effect: respond }] });
    engine.evaluateRequest(request(), 'request');
    engine.reset();
    expect(engine.list().map((a) => [a.name, a.hits])).toEqual([['from-start', 0]]);
    expect(engine.evaluateRequest(request(), 'request')).toHaveLength(1);
  });

  it('restores counters, sequence position and the random stream from a snapshot', () => {
    const { engine } = setup();
    engine.activate({ name: 'p', rules: [{ when: { probability: 0.5 }, sequence: [respond, 'pass', respond], repeat: true }] });
    for (let i = 0; i < 7; i++) engine.evaluateRequest(request(), 'request');
    const saved = JSON.parse(JSON.stringify(engine.snapshot()));
    const continued = Array.from({ length: 20 }, () => engine.evaluateRequest(request(), 'request').length);

    const other = setup().engine;
    other.restore(saved);
    expect(Array.from({ length: 20 }, () => other.evaluateRequest(request(), 'request').length)).toEqual(continued);
  });
});
