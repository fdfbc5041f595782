import { describe, expect, it } from 'vitest';
import { createClock } from '../clock/clock.js';
import { createRandom } from '../random/random.js';
import { createScenarioEngine } from './engine.js';
import { RuleIndex } from './rule-index.js';
import { createScenarioLoader } from './scenario-file.js';

const rule = (index: number) => ({ index });

describe('RuleIndex', () => {
  it('files literal rules under method + path (and exact query) or operation, scans the rest, and answers candidates in rule order', () => {
    const rules = [
      { rule: rule(0), match: { path: '/v1/**' } },
      { rule: rule(1), match: { method: 'GET', path: '/v1/a' } },
      { rule: rule(2), match: { method: 'GET', path: '/v1/a', query: { page: '2' } } },
      { rule: rule(3), match: { operationId: 'listA' } },
      { rule: rule(4), match: { method: 'GET', path: '/v1/b' } },
      { rule: rule(5) },
    ];
    const index = new RuleIndex(rules);
    const at = (path: string, queryKey = '', operationId?: string) => index.candidates({ method: 'get', path, queryKey, operationId }).map((r) => r.index);
    expect(at('/v1/a')).toEqual([0, 1, 5]);
    expect(at('/v1/a', 'page=2', 'listA')).toEqual([0, 1, 2, 3, 5]);
    expect(at('/v1/b')).toEqual([0, 4, 5]);
    expect(at('/v1/c')).toEqual([0, 5]);
  });
});

describe('recorded rules in the engine', () => {
  const setup = () => createScenarioEngine({ clock: createClock({ mode: 'manual' }), random: createRandom(1), loader: createScenarioLoader() });
  const answer = (text: string) => ({ respond: { status: 200, text } });
  const fired = (engine: ReturnType<typeof setup>, query: Record<string, string> = {}) => engine.evaluateRequest({ method: 'GET', path: '/v1/a', headers: {}, query }, 'request').map((f) => f.effect.respond?.text);

  it.each([
    ['last', ['1', '2', '2', '2']],
    [true, ['1', '2', '1', '2']],
    [false, ['1', '2']],
  ] as const)('repeat %s: what follows the last answer of a sequence', (repeat, expected) => {
    const engine = setup();
    engine.activate({ name: 'r', rules: [{ match: { method: 'GET', path: '/v1/a', query: {} }, sequence: [answer('1'), answer('2')], repeat, recorded: {} }] });
    expect([1, 2, 3, 4].flatMap(() => fired(engine))).toEqual(expected);
  });

  it('matches the query exactly: other parameters, or none where some were recorded, are other requests', () => {
    const engine = setup();
    engine.activate({ name: 'q', rules: [{ match: { method: 'GET', path: '/v1/a', query: { b: '2', a: ['1', '3'] } }, effect: answer('q'), recorded: {} }] });
    expect(fired(engine, { a: ['1', '3'], b: '2' } as never)).toEqual(['q']);
    expect(fired(engine, { b: '2' })).toEqual([]);
    expect(fired(engine)).toEqual([]);
  });

  it('refuses what a recorded answer cannot be: two body forms, a problem field with a body, a success without a body, bad base64', () => {
    const engine = setup();
    const bad = (respond: object) => () => engine.activate({ name: 'bad', rules: [{ effect: { respond } }] });
    expect(bad({ status: 200, text: 'a', body: {} })).toThrow(/combines body and text/);
    expect(bad({ status: 200, text: 'a', problem: 'not-found' })).toThrow(/combines problem .* with text/);
    expect(bad({ status: 200 })).toThrow(/status must be >= 400 for a problem answer/);
    expect(bad({ status: 200, base64: 'abc' })).toThrow(/base64 is not base64/);
  });

  it('keeps hand-written scenarios to 50 rules; a recorded one (every rule `recorded`) may have more, each literal', () => {
    const engine = setup();
    const rules = (recorded: boolean, path = (i: number) => `/v1/a${i}`) =>
      Array.from({ length: 60 }, (_, i) => ({ match: { method: 'GET', path: path(i) }, effect: answer(String(i)), ...(recorded ? { recorded: {} } : {}) }));
    expect(() => engine.activate({ name: 'many', rules: rules(false) })).toThrow(/must NOT have more than 50 items/);
    expect(engine.activate({ name: 'many', rules: rules(true) }).rules).toHaveLength(60);
    expect(() => engine.activate({ name: 'globs', rules: rules(true, (i) => `/v1/*/${i}`) })).toThrow(/must name one method and one literal path/);
  });
});
