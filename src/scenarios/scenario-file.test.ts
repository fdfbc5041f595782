import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_SCENARIOS_DIR, createScenarioLoader, ScenarioError } from './scenario-file.js';

const loader = createScenarioLoader();
const readyFiles = readdirSync(BUILT_IN_SCENARIOS_DIR).filter((f) => f.endsWith('.yaml'));

function violationsOf(input: unknown, params?: Record<string, string | number | boolean>): string[] {
  try {
    loader.parse(input, { params });
  } catch (error) {
    if (error instanceof ScenarioError) return error.violations.map((v) => `${v.field}: ${v.message}`);
    throw error;
  }
  return [];
}

describe('ready scenario files', () => {
  it('there are at least ten', () => {
    expect(readyFiles.length).toBeGreaterThanOrEqual(10);
  });

  it.each(readyFiles)('%s loads, is named like its file, and opens with a header saying what it simulates and how to use it', (file) => {
    const name = file.replace(/\.yaml$/, '');
    expect(loader.load(name).name).toBe(name);
    const header = readFileSync(join(BUILT_IN_SCENARIOS_DIR, file), 'utf8').split('\n').filter((l) => l.startsWith('#'));
    expect(header[0]).toMatch(new RegExp(`^# ${name} — `));
    const text = header.join('\n');
    expect(text).toMatch(/What it simulates:/);
    expect(text).toMatch(/Use it/);
  });

  it('lists the ready scenarios with their descriptions', () => {
    const names = loader.available().map((s) => s.name);
    expect(names).toEqual(readyFiles.map((f) => f.replace(/\.yaml$/, '')).sort());
    expect(loader.available().every((s) => s.description)).toBe(true);
  });
});

describe('validation names the failing field', () => {
  it.each<[string, unknown, string]>([
    ['missing rules', { name: 'x' }, 'scenario/rules: is required'],
    ['a bad name', { name: 'Bad Name', rules: [{ effect: { reset: true } }] }, 'scenario/name: must match pattern'],
    ['an unknown match key', { name: 'x', rules: [{ match: { verb: 'GET' }, effect: { reset: true } }] }, 'scenario/rules/0/match/verb: is not allowed'],
    ['a bad method', { name: 'x', rules: [{ match: { method: 'FETCH' }, effect: { reset: true } }] }, 'scenario/rules/0/match/method'],
    ['a bad probability', { name: 'x', rules: [{ when: { probability: 2 }, effect: { reset: true } }] }, 'scenario/rules/0/when/probability: must be <= 1'],
    ['an empty effect', { name: 'x', rules: [{ effect: {} }] }, 'scenario/rules/0/effect'],
    ['a latency object without max', { name: 'x', rules: [{ effect: { latency: { min: 5 } } }] }, 'scenario/rules/0/effect/latency'],
    ['effect and sequence', { name: 'x', rules: [{ effect: { reset: true }, sequence: ['pass'] }] }, 'scenario/rules/0: needs exactly one of effect or sequence'],
    ['mixed kinds', { name: 'x', rules: [{ effect: { latency: 5, carrier: { outcome: 'FAIL' } } }] }, 'scenario/rules/0/effect: mixes effects'],
    ['carrier match on a request effect', { name: 'x', rules: [{ match: { carrier: 'DPD' }, effect: { reset: true } }] }, 'scenario/rules/0/match/carrier'],
    ['carrier match on a webhook effect', { name: 'x', rules: [{ match: { carrier: 'DPD' }, effect: { webhook: { outcome: 'FAIL' } } }] }, 'scenario/rules/0/match/carrier'],
    ['path match on a domain effect', { name: 'x', rules: [{ match: { path: '/v1/**' }, effect: { tracker: { outcome: 'LOST' } } }] }, 'scenario/rules/0/match'],
    ['an unregistered problem', { name: 'x', rules: [{ effect: { respond: { status: 500, problem: 'oops' } } }] }, 'scenario/rules/0/effect/respond/problem: is not a registered problem type'],
    ['a bad window', { name: 'x', rules: [{ when: { from: 'tomorrow' }, effect: { reset: true } }] }, 'scenario/rules/0/when/from'],
    ['rateLimit on body match', { name: 'x', rules: [{ match: { body: { a: 1 } }, effect: { rateLimit: { limit: 1, window: 'PT1S' } } }] }, 'scenario/rules/0/effect: rateLimit and expireToken'],
  ])('%s', (_label, input, expected) => {
    expect(violationsOf(input).join('\n')).toContain(expected);
  });

  it('reports YAML syntax errors', () => {
    expect(() => loader.parse('name: [unclosed')).toThrow(/not valid YAML/);
  });
});

describe('parameters', () => {
  const definition = {
    name: 'p',
    parameters: { limit: { default: 5 }, path: {} },
    rules: [{ match: { path: '${path}/**' }, effect: { rateLimit: { limit: '${limit}', window: 'PT1S' } } }],
  };

  it('substitutes defaults and given values, keeping numbers numbers', () => {
    const parsed = loader.parse(definition, { params: { path: '/v1/parcels' } });
    expect(parsed.rules[0].match?.path).toBe('/v1/parcels/**');
    expect(parsed.rules[0].effect?.rateLimit?.limit).toBe(5);
    expect(loader.parse(definition, { params: { path: '/x', limit: 9 } }).rules[0].effect?.rateLimit?.limit).toBe(9);
  });

  it('refuses a missing value and an unknown parameter', () => {
    expect(violationsOf(definition).join()).toContain('uses ${path}, which has no default');
    expect(violationsOf(definition, { path: '/x', nope: 1 }).join()).toContain('params/nope');
  });
});

describe('files', () => {
  it('loads a scenario from a path, and refuses a name that does not match its file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-scenario-'));
    const file = join(dir, 'mine.yaml');
    writeFileSync(file, 'name: mine\nrules:\n  - effect: { reset: before }\n');
    expect(loader.load(file).rules).toHaveLength(1);
    const named = createScenarioLoader({ dirs: [dir] });
    writeFileSync(join(dir, 'other.yaml'), 'name: mismatch\nrules:\n  - effect: { reset: before }\n');
    expect(() => named.load('other')).toThrow(/file name and the name must agree/);
    expect(() => loader.load('no-such-scenario')).toThrow(expect.objectContaining({ notFound: true }));
  });
});
