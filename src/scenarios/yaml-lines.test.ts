import { describe, expect, it } from 'vitest';
import { lineOfField } from './yaml-lines.js';

describe('lineOfField', () => {
  const text = 'name: x\nrules:\n  - when:\n      status: 9\n    then: {}\n';

  it('finds the line of a nested key, through lists', () => {
    expect(lineOfField(text, 'scenario/rules/0/when/status')).toBe(4);
    expect(lineOfField(text, 'scenario/name')).toBe(1);
  });

  it('points a missing key at its nearest existing parent', () => {
    expect(lineOfField(text, 'scenario/rules/0/nope')).toBe(3);
    expect(lineOfField(text, 'scenario/rules/7')).toBe(2);
  });

  it('gives nothing for text that is not YAML', () => {
    expect(lineOfField('a: [1, 2', 'scenario/a')).toBeUndefined();
  });
});
