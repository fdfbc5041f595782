import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { deviating } from '../support/deviating-service.js';
import { basicOf, startLiveMock } from '../support/live-mock.js';
import { berlin } from '../support/shipping-fixtures.js';

/** The real `shipmock compare` command (bin/shipmock.js → dist/, built before the tests). */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

interface CompareCli {
  child: ChildProcess;
  url: string;
  mockUrl: string;
  output: () => string;
}

function startCompareCli(args: string[]): Promise<CompareCli> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'compare', '--port', '0', '--log-format', 'json', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no start within 20 s:\n${out}`)), 20_000);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const url = /^shipmock compare listening on (http:\/\/\S+)$/m.exec(out)?.[1];
      const mockUrl = /^ {2}mock {11}(http:\/\/\S+)/m.exec(out)?.[1];
      if (url && mockUrl) {
        clearTimeout(timer);
        resolve({ child, url, mockUrl, output: () => out });
      }
    });
    child.stderr!.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => reject(new Error(`exited ${code} before listening:\n${out}`)));
  });
}

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

async function flow(url: string, real: RunningMock): Promise<string> {
  const post = async (path: string, auth: string, body: unknown) =>
    (await (await fetch(`${url}${path}`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json()) as Record<string, any>;
  const grant = { grantType: 'client_credentials' };
  const company = await post(`/v1/companies/${real.credentials.companyId}/tokens`, basicOf(real), grant);
  const account = await post('/v1/accounts', `Bearer ${company.accessToken}`, {
    company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
    contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
  });
  const auth = `Bearer ${(await post(`/v1/accounts/${account.id}/tokens`, basicOf(real), grant)).accessToken}`;
  const address = await post('/v1/addresses', auth, berlin);
  const res = await fetch(`${url}/v1/addresses/${address.id}`, { headers: { Authorization: auth } });
  expect(res.status).toBe(200);
  return res.headers.get('x-shipmock-drift-count') ?? '';
}

describe('shipmock compare (CLI)', () => {
  let real: RunningMock;
  let odd: { server: Server; url: string };
  beforeAll(async () => {
    real = await startLiveMock({ seed: 31, companyId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', clientId: 'cli-real-client', clientSecret: 'cli-real-secret-abcdef123456' });
    odd = await deviating(real);
  });
  afterAll(async () => {
    await new Promise((resolve) => odd?.server.close(resolve));
    await real?.close();
  });

  it('finds no drift against a second shipmock, serves the drift report, prints the summary at SIGTERM and exits 0', async () => {
    const cli = await startCompareCli(['--upstream', real.url, '--fail-on-drift', '--ignore', '$.items[*].createdAt']);
    expect(await flow(cli.url, real)).toBe('0');
    const report = (await (await fetch(`${cli.mockUrl}/__admin/drift`)).json()) as { summary: { compared: number; drifted: number } };
    expect(report.summary).toMatchObject({ compared: 5, drifted: 0 });
    const exit = exitOf(cli.child);
    cli.child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(cli.output()).toMatch(/^5 request\(s\) compared, 0 with drift from the real service$/m);
    expect(cli.output()).toMatch(/getAddress\s+1 request\(s\)\s+0 drifted/);
    expect(cli.output()).not.toContain('cli-real-secret-abcdef123456');
  });

  it('exits 1 with --fail-on-drift after drift, naming the fields; logs no secret', async () => {
    const cli = await startCompareCli(['--upstream', odd.url, '--fail-on-drift']);
    expect(await flow(cli.url, real)).toBe('2');
    const exit = exitOf(cli.child);
    cli.child.kill('SIGINT');
    expect(await exit).toBe(1);
    expect(cli.output()).toMatch(/^5 request\(s\) compared, 1 with drift from the real service$/m);
    expect(cli.output()).toMatch(/1×\s+body\s+\$\.zipCode/);
    expect(cli.output()).toContain('"msg":"drift: 2 difference(s) from the real service"');
    expect(cli.output()).not.toContain('cli-real-secret-abcdef123456');
    expect(cli.output()).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}/);
  });

  it('refuses a bad --ignore path and a missing --upstream, naming them', async () => {
    for (const [args, message] of [
      [['--upstream', real.url, '--ignore', '$.items[?(@.a)]'], '--ignore $.items[?(@.a)]'],
      [[], 'shipmock compare needs --upstream URL'],
    ] as const) {
      const child = spawn(process.execPath, [bin, 'compare', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr!.on('data', (chunk) => (err += chunk));
      expect(await exitOf(child)).toBe(2);
      expect(err).toContain(message);
    }
  });
});
