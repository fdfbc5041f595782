import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, runFuzz, type FuzzReport } from './fuzz/fuzzer.js';
import { startInProcessTarget, type StartedTarget } from './fuzz/targets.js';

/**
 * The contract fuzzer (test/reliability/fuzz/fuzzer.ts) on a bounded budget against the real app
 * of this checkout, in process: every operation at least once with a valid request, then random
 * valid and mutated requests with every token level. Seeded; the seed is printed, and
 * `FUZZ_SEED=<seed> npx vitest run --project unit-api test/reliability/contract-fuzz.test.ts`
 * sends the same requests again. The long budget against a real server: `npm run fuzz`.
 */
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const requests = process.env.FUZZ_REQUESTS ? Number(process.env.FUZZ_REQUESTS) : 3000;

describe('contract fuzz (in process)', () => {
  let started: StartedTarget;
  let report: FuzzReport;

  beforeAll(async () => {
    started = await startInProcessTarget(1);
    process.stdout.write(`contract fuzz: seed ${seed} (FUZZ_SEED=${seed} to repeat), ${requests} requests\n`);
    report = await runFuzz({ contract: started.runtime!.contract, validators: started.runtime!.validators, target: started.target, seed, requests, timeLimitMs: 120_000, stateCheckRate: 0.08 });
    process.stdout.write(`${formatReport(report, started.target.baseUrl)}\n`);
  }, 180_000);

  afterAll(async () => {
    await started?.close();
  });

  it('sent the whole budget, every operation included', () => {
    expect(report.requests).toBeGreaterThanOrEqual(requests);
    expect(report.stateChecks).toBeGreaterThan(20);
    expect(report.mutated).toBeGreaterThan(requests / 5);
  });

  it('exercised stateful handlers beyond 404: most operations answered a 2xx', () => {
    expect(report.never2xx.length, report.never2xx.join(', ')).toBeLessThan(started.runtime!.contract.operations.length / 3);
  });

  it.each(['5xx', 'contract-violation', 'accepted-invalid', 'state-changed', 'transport', 'down'] as const)('found no %s (seed printed above)', (kind) => {
    const found = report.findings.filter((f) => f.kind === kind);
    expect(found.map((f) => `${f.operationId} ×${f.count}: ${f.detail}`)).toEqual([]);
  });
});
