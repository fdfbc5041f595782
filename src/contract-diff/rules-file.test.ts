import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRules, readRulesFile } from './rules-file.js';

describe('rules files', () => {
  it('reads YAML and JSON maps of rule ids to classes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-'));
    writeFileSync(join(dir, 'r.yaml'), 'rules:\n  response-enum-widened: safe\n  request-pattern-changed: breaking\n');
    writeFileSync(join(dir, 'r.json'), '{"rules":{"response-error-status-added":"safe"}}');
    expect(readRulesFile(join(dir, 'r.yaml'))).toEqual({ 'response-enum-widened': 'safe', 'request-pattern-changed': 'breaking' });
    expect(readRulesFile(join(dir, 'r.json'))).toEqual({ 'response-error-status-added': 'safe' });
    expect(() => readRulesFile(join(dir, 'missing.yaml'))).toThrow(/^--rules .*missing\.yaml: cannot read it \(ENOENT\)$/);
    writeFileSync(join(dir, 'bad.yaml'), 'rules: [a');
    expect(() => readRulesFile(join(dir, 'bad.yaml'))).toThrow(/^--rules .*bad\.yaml: not YAML or JSON/);
  });

  it.each([
    [[], /expected a map with a "rules" key/],
    [{ rule: {} }, /unknown key rule \(only "rules" is allowed\)/],
    [{ rules: ['a'] }, /"rules" must map rule ids/],
    [{ rules: { 'response-enum-widend': 'safe' } }, /unknown rule response-enum-widend \(did you mean response-enum-widened\?\)/],
    [{ rules: { 'no-such-thing-at-all': 'safe' } }, /unknown rule no-such-thing-at-all; the rules are listed/],
    [{ rules: { 'response-enum-widened': 'off' } }, /must be breaking, may-break or safe \(got "off"\)/],
  ])('refuses %j', (parsed, message) => {
    expect(() => parseRules(parsed)).toThrow(message);
  });

  it('accepts an empty rules map', () => {
    expect(parseRules({ rules: null })).toEqual({});
  });
});
