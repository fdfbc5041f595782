import { describe, expect, it } from 'vitest';
import { diffContracts } from '../../src/contract-diff/diff.js';
import { exampleDocuments } from '../../src/contract-diff/example-documents.js';
import { RULES } from '../../src/contract-diff/rules.js';

/**
 * The mutation corpus: every rule's example (rules.ts) run end to end. The old → new pair must
 * trigger the rule with its class; the near miss (old → nearMiss), a change that looks alike,
 * must not trigger it — false positives are what users of such gates complain about most.
 */
describe('the mutation corpus: every rule fires on its example and not on its near miss', () => {
  for (const rule of RULES) {
    describe(rule.id, () => {
      const docs = exampleDocuments(rule.example);

      it(`fires on its example (${rule.class})`, () => {
        const found = diffContracts(docs.old, docs.new).changes.filter((c) => c.rule === rule.id);
        expect(found.length, `no ${rule.id} between ${JSON.stringify(rule.example.old)} and ${JSON.stringify(rule.example.new)}`).toBeGreaterThan(0);
        expect(found[0].class).toBe(rule.class);
        expect(found[0].reason).not.toBe('');
      });

      it('does not fire on its near miss', () => {
        const changes = diffContracts(docs.old, docs.nearMiss).changes;
        expect(changes.filter((c) => c.rule === rule.id)).toEqual([]);
      });

      it('finds nothing between a contract and itself', () => {
        expect(diffContracts(docs.new, structuredClone(docs.new)).changes).toEqual([]);
      });
    });
  }
});
