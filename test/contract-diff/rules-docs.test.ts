import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderRulesTable } from '../../src/contract-diff/rules-table.js';
import { RULES } from '../../src/contract-diff/rules.js';

const DOC = new URL('../../docs/contract-diff.md', import.meta.url);
const START = '<!-- rules-table:start (generated from src/contract-diff/rules.ts; UPDATE_DOCS=1 npx vitest run test/contract-diff/rules-docs.test.ts) -->';
const END = '<!-- rules-table:end -->';

describe('docs/contract-diff.md', () => {
  it('lists every rule exactly as src/contract-diff/rules.ts defines it', () => {
    const page = readFileSync(DOC, 'utf8');
    const start = page.indexOf(START);
    const end = page.indexOf(END);
    expect(start, 'the rules table markers are missing').toBeGreaterThan(-1);
    const current = page.slice(start + START.length, end).trim();
    const expected = renderRulesTable();
    if (current !== expected && process.env.UPDATE_DOCS === '1') {
      writeFileSync(DOC, `${page.slice(0, start + START.length)}\n${expected}\n${page.slice(end)}`);
      return;
    }
    expect(current).toBe(expected);
  });

  it('has unique rule ids, each with a request-/response-/other prefix that matches its examples', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of RULES) {
      if (rule.id.startsWith('request-') && rule.example.site.endsWith('body')) expect(rule.example.site, rule.id).toBe('request-body');
      if (rule.id.startsWith('response-') && rule.example.site.endsWith('-body')) expect(['response-body', 'webhook-body'], rule.id).toContain(rule.example.site);
    }
  });
});
