import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../../src/server/start-mock.js';
import { readPactFiles } from '../../../src/verify/pact-files.js';
import { formatReport } from '../../../src/verify/report.js';
import type { VerificationReport } from '../../../src/verify/run-verification.js';
import { PACT_DIR, startBreakingProxy, startProviderMock, verifyProviderCaptured } from './support.js';

/**
 * A provider state that cannot be set up must fail its interaction with the reason (pact-js
 * itself would answer the state call 200 and let the interaction run, possibly passing by
 * accident, e.g. a 404 expectation against a resource that was never created). The verification
 * fails on purpose: it runs with its console output captured (verifyProviderCaptured), shown
 * only when a check fails.
 */
describe('provider states that cannot be set up', () => {
  let mock: RunningMock;
  let broken: Awaited<ReturnType<typeof startBreakingProxy>>;
  let report: VerificationReport;
  let verifierOutput: string;

  beforeAll(async () => {
    mock = await startProviderMock();
    // Parcels cannot be created: the state "a parcel exists" fails in its setup.
    broken = await startBreakingProxy(mock.url, [{ method: 'POST', path: /^\/v1\/parcels$/, status: 500 }]);
    const [pact] = readPactFiles([PACT_DIR], 'ShippingPlatformAPI').filter((p) => p.consumer === 'ShippingClient');
    const pick = (description: string) => structuredClone(pact.interactions.find((i) => i.description === description)!);
    const renamed = pick("a request to fetch another account's address");
    renamed.providerStates = [{ name: 'a state nobody implements', params: {} }];
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-state-failures-'));
    writeFileSync(
      join(dir, 'ShippingClient-ShippingPlatformAPI.json'),
      JSON.stringify({ ...pact.raw, interactions: [pick('a request to fetch a parcel'), renamed, pick('a request to fetch an address')] }),
    );
    ({ report, output: verifierOutput } = await verifyProviderCaptured({ baseUrl: broken.url, access: mock.credentials, shipmockUrl: mock.url, pacts: [dir] }));
  });

  afterAll(async () => {
    await broken?.close();
    await mock?.close();
  });

  const outcome = (description: string) => report.interactions.find((o) => o.description === description)!;
  /** The whole report and what the verifier printed, for a failing check's message. */
  const context = () => `${formatReport(report)}\n--- Pact verifier output ---\n${verifierOutput}`;

  it('fails the interaction whose state setup failed, naming the call that failed', () => {
    expect(outcome('a request to fetch a parcel'), context()).toMatchObject({
      status: 'failed',
      reasons: [expect.stringMatching(/^provider state "a parcel exists" could not be set up: POST \/v1\/parcels answered 500/)],
    });
  });

  it('fails an interaction with an unknown state instead of running it unprepared', () => {
    // Without the state the 404 expectation would even hold: the point is that it must not pass.
    expect(outcome("a request to fetch another account's address"), context()).toMatchObject({
      status: 'failed',
      reasons: [expect.stringMatching(/^provider state "a state nobody implements" could not be set up: unknown state/)],
    });
  });

  it('keeps the other interactions unaffected', () => {
    expect(outcome('a request to fetch an address').status, context()).toBe('passed');
    expect(report.counts, context()).toEqual({ passed: 1, failed: 2, skipped: 0 });
  });
});
