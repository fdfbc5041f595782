import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../../src/server/start-mock.js';
import { verifyProvider } from '../../../src/verify/run-verification.js';
import { realTargetControl } from '../../../src/verify/targets.js';
import { descriptionsOf, pactSubset, startBreakingProxy, startProviderMock } from './support.js';

/**
 * `shipmock verify` against an arbitrary base URL: public API only, so states that need a
 * control plane are skipped with the reason; the real command (bin/shipmock.js → dist/, built
 * by `npm run build` before the tests) prints which interactions passed, failed and why, and
 * its exit status says whether any failed.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = fileURLToPath(new URL('../../../bin/shipmock.js', import.meta.url));

function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, 'verify', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => resolve({ code, out: out.replace(/\x1b\[[0-9;]*m/g, '') }));
  });
}

describe('verification of a target we do not control', () => {
  let mock: RunningMock;
  const subset = pactSubset((i) =>
    ['a request to fetch an account', 'a request with an expired Account token', 'a request while the rate limit is exhausted', 'a TRACKER UPDATED event', 'a CARRIER_STATUS OUTAGE mock event'].includes(
      i.description,
    ),
  );

  beforeAll(async () => {
    mock = await startProviderMock();
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('skips the states that need a control plane, with the reason, and verifies the rest through the public API', async () => {
    const report = await verifyProvider({ baseUrl: mock.url, access: mock.credentials, control: realTargetControl({ baseUrl: mock.url }), pacts: [subset] });
    const skipped = report.interactions.filter((o) => o.status === 'skipped');
    expect(descriptionsOf(skipped)).toEqual(['a TRACKER UPDATED event', 'a request while the rate limit is exhausted', 'a request with an expired Account token']);
    expect(skipped.find((o) => o.description === 'a request with an expired Account token')!.reasons[0]).toMatch(/needs clock: a token only expires after 4 hours/);
    expect(skipped.find((o) => o.description === 'a request while the rate limit is exhausted')!.reasons[0]).toMatch(/needs rate-limit/);
    expect(descriptionsOf(report.interactions.filter((o) => o.status === 'passed'))).toEqual(['a CARRIER_STATUS OUTAGE mock event', 'a request to fetch an account']);
    expect(report.ok).toBe(true);
  });

  it('skips webhook message pacts for a remote target without a public inbox URL', async () => {
    const report = await verifyProvider({
      baseUrl: mock.url,
      access: mock.credentials,
      control: realTargetControl({ baseUrl: 'https://api.example.com' }),
      pacts: [pactSubset((i) => i.description === 'a CARRIER_STATUS OUTAGE mock event')],
    });
    expect(report.interactions).toEqual([expect.objectContaining({ status: 'skipped', reasons: [expect.stringMatching(/needs webhooks: .*--webhook-public-url/)] })]);
  });

  it('shipmock verify (flags) prints PASS and SKIP lines with reasons and exits 0', async () => {
    const c = mock.credentials;
    const { code, out } = await runCli(['--base-url', mock.url, '--company-id', c.companyId, '--client-id', c.clientId, '--client-secret', c.clientSecret, '--pact-dir', subset]);
    expect(out).toMatch(/^PASS  ShippingClient: a request to fetch an account  \[given an account exists\]$/m);
    expect(out).toMatch(/^SKIP  ShippingClient: a request with an expired Account token/m);
    expect(out).toMatch(/^\s+state "the Account token has expired" needs clock: /m);
    expect(out).toMatch(/^2 passed, 0 failed, 3 skipped$/m);
    expect(code).toBe(0);
  });

  it('shipmock verify --shipmock uses the control API: nothing is skipped', async () => {
    const c = mock.credentials;
    const { code, out } = await runCli(['--shipmock', '--base-url', mock.url, '--company-id', c.companyId, '--client-id', c.clientId, '--client-secret', c.clientSecret, '--pact-dir', subset]);
    expect(out).toMatch(/^PASS  ShippingClient: a request with an expired Account token/m);
    expect(out).toMatch(/^PASS  ShippingClient: a request while the rate limit is exhausted/m);
    expect(out).toMatch(/^PASS  ShippingWebhookReceiver: a TRACKER UPDATED event/m);
    expect(out).toMatch(/^5 passed, 0 failed, 0 skipped$/m);
    expect(code).toBe(0);
  });

  it('shipmock verify (SHIPMOCK_VERIFY_* environment) exits 1 and says why when the provider is broken', async () => {
    const broken = await startBreakingProxy(mock.url, [{ method: 'GET', path: /^\/v1\/accounts\/[^/]+$/, rename: ['contact', 'person'] }]);
    try {
      const c = mock.credentials;
      const { code, out } = await runCli(['--pact-dir', pactSubset((i) => i.description === 'a request to fetch an account')], {
        SHIPMOCK_VERIFY_BASE_URL: broken.url,
        SHIPMOCK_VERIFY_COMPANY_ID: c.companyId,
        SHIPMOCK_VERIFY_CLIENT_ID: c.clientId,
        SHIPMOCK_VERIFY_CLIENT_SECRET: c.clientSecret,
      });
      expect(out).toMatch(/^FAIL  ShippingClient: a request to fetch an account/m);
      expect(out).toMatch(/contact/);
      expect(out).toMatch(/^0 passed, 1 failed, 0 skipped$/m);
      expect(code).toBe(1);
    } finally {
      await broken.close();
    }
  });

  it('shipmock verify without credentials names what is missing and exits 2', async () => {
    const { code, out } = await runCli(['--base-url', mock.url], { SHIPMOCK_VERIFY_COMPANY_ID: '', SHIPMOCK_VERIFY_CLIENT_ID: '', SHIPMOCK_VERIFY_CLIENT_SECRET: '' });
    expect(out).toMatch(/needs --company-id, --client-id, --client-secret/);
    expect(code).toBe(2);
  });
});
