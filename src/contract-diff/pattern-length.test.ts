import { describe, expect, it } from 'vitest';
import { patternLength } from './pattern-length.js';

describe('patternLength', () => {
  it.each([
    ['^[A-Z]{2}$', { min: 2, max: 2 }],
    ['^\\+?[0-9 ()-]{5,20}$', { min: 5, max: 21 }],
    ['^(?:ab|c)d?$', { min: 1, max: 3 }],
    ['^[a-z]+$', { min: 1, max: Infinity }],
    ['^\\d{3}(-\\d{4})?$', { min: 3, max: 8 }],
    ['^(?=.{2})[A-Z]{2,3}$', { min: 2, max: 3 }],
    ['^\\u00e9{2}$', { min: 2, max: 2 }],
  ])('%s matches strings of %o', (pattern, expected) => {
    expect(patternLength(pattern)).toEqual(expected);
  });

  it.each(['[A-Z]{2}', '^[A-Z]{2}', '^(a)\\1$', '^[A-Z$', '^a\\$'])('gives no bounds for %s (unanchored, backreference or unreadable)', (pattern) => {
    expect(patternLength(pattern)).toBeUndefined();
  });
});
