import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module without types (the bench script that reports the same numbers)
import { mutateContract, replicateContract } from '../../bench/contract-diff.mjs';
import { diffContracts } from '../../src/contract-diff/diff.js';
import { inMemoryDocumentSet } from '../../src/contract-diff/load.js';

/**
 * The budgets of issue 28, checked on CPU time (the machine running the tests may be busy; wall
 * time is what bench/contract-diff.mjs reports): two versions of this project's contract ≤ 1 s,
 * two 20,000-line contracts ≤ 5 s — parse and diff, as the CLI does.
 */
const text = readFileSync(new URL('../../contract/openapi.yaml', import.meta.url), 'utf8');
const cpuMs = (run: () => void) => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const parse = (source: string) => yaml.load(source, { schema: yaml.CORE_SCHEMA });

describe('contract diff budgets', () => {
  it("diffs two versions of this project's contract in under a second", () => {
    const changed = text.replace('maxLength: 512', 'maxLength: 256');
    let changes = 0;
    const ms = cpuMs(() => {
      changes = diffContracts(inMemoryDocumentSet(parse(text), 'old'), inMemoryDocumentSet(parse(changed), 'new')).changes.length;
    });
    expect(changes).toBeGreaterThan(0);
    expect(ms).toBeLessThan(1000);
  });

  it('diffs two contracts of over 20,000 lines in under five seconds', () => {
    const base = parse(text);
    const large = yaml.dump(replicateContract(base, 3), { lineWidth: -1, noRefs: true });
    const next = yaml.dump(mutateContract(replicateContract(base, 3)), { lineWidth: -1, noRefs: true });
    expect(large.split('\n').length).toBeGreaterThan(20_000);
    let report: ReturnType<typeof diffContracts> | undefined;
    const ms = cpuMs(() => {
      report = diffContracts(inMemoryDocumentSet(parse(large), 'old'), inMemoryDocumentSet(parse(next), 'new'));
    });
    // The mutation changes Address in each of the 3 copies: the diff sees all three.
    expect(new Set(report!.changes.map((c) => c.pointer.new?.split('/')[3]))).toEqual(new Set(['Address', 'Address_2', 'Address_3']));
    expect(ms).toBeLessThan(5000);
  }, 60_000);
});
