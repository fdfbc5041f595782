import { describe, expect, it } from 'vitest';
import { globTest, globToPattern, patternWeight, regexProblem, regexTest } from './linear-pattern.js';

describe('globTest', () => {
  it.each([
    ['/v1/addresses', '/v1/addresses', true],
    ['/v1/addresses', '/v1/addresses/1', false],
    ['/v1/*', '/v1/addresses', true],
    ['/v1/*', '/v1/addresses/1', false],
    ['/v1/addresses/**', '/v1/addresses', true],
    ['/v1/addresses/**', '/v1/addresses/1/x', true],
    ['/v1/**/labels', '/v1/shipment-bookings/1/labels', true],
    ['/v1/a.b', '/v1/aXb', false],
    ['/v1/(x)', '/v1/(x)', true],
  ])('path glob %s on %s → %s', (glob, path, expected) => {
    expect(globTest(glob)(path)).toBe(expected);
  });

  it('a body glob lets * cross slashes', () => {
    expect(globTest('*@example.com', { segments: false })('a/b@example.com')).toBe(true);
    expect(globTest('*@example.com', { segments: false })('a@example.org')).toBe(false);
  });

  it('escapes every RE2 metacharacter of a literal', () => {
    expect(globToPattern('a+b?c^d$e{f}g(h)i|j[k]l\\m.')).toBe('^a\\+b\\?c\\^d\\$e\\{f\\}g\\(h\\)i\\|j\\[k\\]l\\\\m\\.$');
  });

  it('matches a many-star glob against a long text in milliseconds', () => {
    const started = performance.now();
    expect(globTest('*a*a*a*a*a*a*a*b', { segments: false })('a'.repeat(20_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('regexTest', () => {
  it('searches like RegExp.test', () => {
    expect(regexTest('b+c')('abbbcd')).toBe(true);
    expect(regexTest('^b')('ab')).toBe(false);
  });

  it('runs nested repetition in linear time', () => {
    const started = performance.now();
    expect(regexTest('^(a|a)*y$')(`${'a'.repeat(20_000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('names what RE2 cannot run', () => {
    expect(regexProblem('(?=a)a')).toMatch(/./);
    expect(regexProblem('(a)\\1')).toMatch(/./);
    expect(regexProblem('^a[0-9]+$')).toBeUndefined();
  });
});

describe('patternWeight', () => {
  it.each([
    ['/v1/addresses', 'glob', 0],
    ['/v1/addresses/*', 'glob', 15],
    ['abc', 'regex', 12],
    ['a{10}', 'regex', 40],
    ['(?:ab{10}){10}', 'regex', 440],
    ['(?:(?:a{10}){10}){10}', 'regex', 4_000],
    ['[a-z]{3}-\\d{2}', 'regex', 24],
    ['(?i)x|y', 'regex', 8],
  ] as const)('%s (%s) weighs %i', (pattern, kind, weight) => {
    expect(patternWeight(pattern, kind).weight).toBe(weight);
  });

  it('names a counted repetition above 100 and weighs it whole', () => {
    const { weight, problem } = patternWeight('a{1000}', 'regex');
    expect(problem).toMatch(/repeats \{1000\}; a counted repetition is at most \{100\}/);
    expect(weight).toBe(4_000);
  });
});
