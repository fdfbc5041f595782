import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, companyAuth, expectStatus, startChild, type ChildMock } from '../durability/child-mock.js';

/**
 * `shipmock verify` judges the provider, never its test data, and ends quickly when a server is
 * not there (issue 23). Real processes: `shipmock serve` as the provider, the real
 * `shipmock verify` (bin/shipmock.js → dist/, built by `npm run build`) with the bundled pacts.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));
const COMPANY_ID = '5f0c6a3e-1d2b-4c8e-9a7f-3b2d1e0c9a84';
const CREDENTIALS = ['--company-id', COMPANY_ID, '--client-id', 'shipmock-demo-client', '--client-secret', 'shipmock-demo-secret'];

function runVerify(args: string[]): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    // An empty directory as the working directory's pacts would be read instead of the bundled ones.
    const child = spawn(process.execPath, [bin, 'verify', ...args], { cwd: root, env: { ...process.env, PACT_BROKER_BASE_URL: '', PACT_BROKER_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 170_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out: out.replace(/\x1b\[[0-9;]*m/g, ''), ms: Date.now() - started });
    });
  });
}

/** A loopback port nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The README's follow-along block: an account created without `alias`. */
const README_ACCOUNT = {
  company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
  contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
};

describe('shipmock verify against a provider that already has data', () => {
  let mock: ChildMock;
  const existing: string[] = [];
  beforeAll(async () => {
    mock = await startChild([]);
    const auth = await companyAuth(mock);
    // More than the pact's page (limit 10), so the state's account is not on the first page.
    for (let i = 0; i < 12; i++) existing.push((await expectStatus(call(mock.url, 'POST', '/v1/accounts', { auth, body: README_ACCOUNT }), 201, 'POST /v1/accounts')).id);
  });
  afterAll(async () => {
    await mock?.kill();
  });

  it('passes every interaction although the company has accounts without alias, and leaves them alone', async () => {
    const { code, out } = await runVerify(['--shipmock', '--base-url', mock.url, ...CREDENTIALS]);
    expect(out).toMatch(/^PASS  ShippingClient: a request to list accounts  \[given an account exists\]$/m);
    expect(out).not.toMatch(/^FAIL/m);
    expect(out).toMatch(/^\d+ passed, 0 failed, 0 skipped$/m);
    expect(code).toBe(0);
    // The provider's own accounts are still there; the ones verify created are gone.
    const listed = await expectStatus(call(mock.url, 'GET', '/v1/accounts?limit=100', { auth: await companyAuth(mock) }), 200, 'GET /v1/accounts');
    expect(listed.items.map((a: { id: string }) => a.id).sort()).toEqual([...existing].sort());
  }, 180_000);

  it('an unreachable broker ends in one line naming its URL, exit 2, within seconds', async () => {
    for (const brokerUrl of ['http://unreachable.invalid', `http://127.0.0.1:${await closedPort()}`]) {
      const { code, out, ms } = await runVerify(['--base-url', mock.url, ...CREDENTIALS, '--broker-url', brokerUrl]);
      expect(out.trim().split('\n'), out).toHaveLength(1);
      expect(out.trim()).toMatch(new RegExp(`^shipmock: cannot reach the Pact Broker at ${brokerUrl.replace(/[.:/]/g, '\\$&')}: (the host name does not resolve|the host name could not be resolved now|nothing listens on that port)`));
      expect(code).toBe(2);
      expect(ms).toBeLessThan(15_000);
    }
  }, 60_000);
});

describe('shipmock verify against a provider that is not there', () => {
  it.each([
    ['a name that cannot resolve', async () => 'http://unreachable.invalid', /the host name does not resolve \(ENOTFOUND\)|could not be resolved now \(EAI_AGAIN\)/],
    ['a closed local port', async () => `http://127.0.0.1:${await closedPort()}`, /nothing listens on that port \(ECONNREFUSED\)/],
  ])('%s: one line naming the URL and the cause, exit 2, within seconds', async (_name, urlOf, cause) => {
    const url = await urlOf();
    const { code, out, ms } = await runVerify(['--base-url', url, ...CREDENTIALS]);
    const lines = out.trim().split('\n');
    expect(lines, out).toHaveLength(1);
    expect(lines[0]).toContain(`shipmock: cannot reach the provider at ${url}: `);
    expect(lines[0]).toMatch(cause);
    expect(code).toBe(2);
    // Node's start-up and the CLI's imports on a loaded machine included; before: 63 s and more.
    expect(ms).toBeLessThan(15_000);
  }, 60_000);
});
