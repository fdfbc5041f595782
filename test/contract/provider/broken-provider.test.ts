import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../../src/server/start-mock.js';
import { formatReport } from '../../../src/verify/report.js';
import type { VerificationReport } from '../../../src/verify/run-verification.js';
import { descriptionsOf, pactSubset, startBreakingProxy, startProviderMock, verifyProviderCaptured } from './support.js';

/**
 * Proof that verification verifies something: the same pacts against shipmock behind a proxy
 * that renames one field on one route and changes the status of another fail on exactly the
 * interactions that use those routes, and on nothing else. The verification fails on purpose:
 * it runs with its console output captured (verifyProviderCaptured), shown only when a check fails.
 */
describe('provider verification against a deliberately broken provider', () => {
  let mock: RunningMock;
  let broken: Awaited<ReturnType<typeof startBreakingProxy>>;
  let report: VerificationReport;
  let verifierOutput: string;
  // The account and address interactions: the two broken routes and their neighbours.
  const pacts = pactSubset((i) => /account|address/.test(i.description) && !/expired|did not issue|with a Company token/.test(i.description));

  beforeAll(async () => {
    mock = await startProviderMock();
    broken = await startBreakingProxy(mock.url, [
      { method: 'GET', path: /^\/v1\/addresses\/[^/]+$/, rename: ['postalCode', 'zip'] },
      { method: 'PUT', path: /^\/v1\/accounts\/[^/]+$/, status: 200 },
    ]);
    ({ report, output: verifierOutput } = await verifyProviderCaptured({ baseUrl: broken.url, access: mock.credentials, shipmockUrl: mock.url, pacts: [pacts] }));
  });

  afterAll(async () => {
    await broken?.close();
    await mock?.close();
  });

  it('fails exactly the interactions of the broken routes, with the reason', () => {
    const failed = report.interactions.filter((o) => o.status === 'failed');
    expect(descriptionsOf(failed), `${formatReport(report)}\n--- Pact verifier output ---\n${verifierOutput}`).toEqual(['a request to fetch an address', 'a request to replace an account']);
    const reasons = (description: string) => failed.find((o) => o.description === description)!.reasons.join('\n');
    expect(reasons('a request to fetch an address')).toMatch(/postalCode/);
    expect(reasons('a request to replace an account')).toMatch(/expected 204 but was 200/);
    expect(report.ok).toBe(false);
  });

  it('still passes the neighbouring interactions on the same resources', () => {
    const passed = descriptionsOf(report.interactions.filter((o) => o.status === 'passed'));
    expect(passed).toEqual(
      expect.arrayContaining(['a request to list the addresses of a country', 'a request to fetch an account', 'a request to create an address', 'a request to delete an account']),
    );
    expect(report.counts.passed).toBeGreaterThanOrEqual(8);
  });
});
