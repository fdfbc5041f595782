import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startServeCli } from '../support/serve-cli.js';

/** The control-plane flags of the real `shipmock` command (bin/shipmock.js → dist/). */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

const basic = `Basic ${Buffer.from('shipmock-demo-client:shipmock-demo-secret').toString('base64')}`;
async function post(url: string, auth: string, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** GET with another Host header (fetch always sends the URL's own). */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { Host: host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

describe('shipmock serve: control-plane flags', () => {
  it('starts with a manual clock and a scenario file, saves the state on SIGTERM and restores it (tokens too) on the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipmock-cli-'));
    const stateFile = join(dir, 'state.json');
    const scenario = join(dir, 'slow-lists.yaml');
    writeFileSync(scenario, 'name: slow-lists\nrules:\n  - match: { method: GET, path: /v1/addresses }\n    effect: { latency: 10 }\n');
    const args = ['--clock', 'manual', '--clock-start', '2026-05-01T00:00:00Z', '--scenario', scenario, '--state-file', stateFile];

    const first = await startServeCli(args);
    expect(first.banner).toMatch(/control plane +\/__admin open to this machine \(loopback\)/);
    expect(first.banner).toMatch(/clock +manual/);
    expect(first.banner).toMatch(/scenarios +slow-lists/);
    expect(first.banner).toMatch(/state file +.*state\.json/);
    expect((await (await fetch(`${first.url}/__admin/clock`)).json()).now).toBe('2026-05-01T00:00:00.000Z');
    const active = (await (await fetch(`${first.url}/__admin/scenarios`)).json()).active;
    expect(active).toEqual([expect.objectContaining({ name: 'slow-lists', source: 'start' })]);

    const companyId = /company id\s+(\S+)/.exec(first.banner)![1];
    const company = await post(`${first.url}/v1/companies/${companyId}/tokens`, basic, { grantType: 'client_credentials' });
    const account = await post(`${first.url}/v1/accounts`, `Bearer ${company.body.accessToken}`, {
      company: { name: 'Muster GmbH', vatNumber: 'DE1', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
      contact: { name: 'Erika', email: 'erika@example.com', phone: '+49301234567' },
    });
    const token = await post(`${first.url}/v1/accounts/${account.body.id}/tokens`, basic, { grantType: 'client_credentials' });
    const auth = `Bearer ${token.body.accessToken}`;
    const address = await post(`${first.url}/v1/addresses`, auth, { name: 'E', street: 'S 1', city: 'Berlin', postalCode: '10115', countryCode: 'DE' });
    expect(address.status).toBe(201);
    await fetch(`${first.url}/__admin/clock/advance`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ duration: 'PT1H' }) });
    expect(await stop(first.child)).toBe(0);
    expect(existsSync(stateFile)).toBe(true);
    // It holds client, webhook and token secrets: owner only.
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toMatchObject({ format: 'shipmock-state', clock: { now: '2026-05-01T01:00:00.000Z' }, tokenSecret: expect.any(String) });

    const second = await startServeCli(args);
    expect((await (await fetch(`${second.url}/__admin/clock`)).json()).now).toBe('2026-05-01T01:00:00.000Z');
    const list = await fetch(`${second.url}/v1/addresses`, { headers: { Authorization: auth } });
    expect(list.status).toBe(200);
    expect((await list.json()).items.map((a: { id: string }) => a.id)).toEqual([address.body.id]);
    expect(await stop(second.child)).toBe(0);
  });

  it('locks the control plane behind --admin-key', async () => {
    const started = await startServeCli(['--admin-key', 'correct-horse-battery']);
    expect(started.banner).toMatch(/control plane +\/__admin requires X-Admin-Key/);
    expect((await fetch(`${started.url}/__admin/clock`)).status).toBe(401);
    expect((await fetch(`${started.url}/__admin/clock`, { headers: { 'X-Admin-Key': 'correct-horse-battery' } })).status).toBe(200);
    expect((await fetch(`${started.url}/__admin/health`)).status).toBe(200);
  });

  it('answers only the pages of --admin-origin, and the Host names of --admin-host', async () => {
    const started = await startServeCli(['--admin-origin', 'http://localhost:3000,http://127.0.0.1:5173', '--admin-host', 'mock.test']);
    expect(started.banner).toMatch(/admin origins +http:\/\/localhost:3000, http:\/\/127\.0\.0\.1:5173/);
    const page = (origin: string) => ({ Origin: origin, 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'cors' });
    const allowed = await fetch(`${started.url}/__admin/clock`, { headers: page('http://127.0.0.1:5173') });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
    const other = await fetch(`${started.url}/__admin/reset`, { method: 'POST', headers: { ...page('https://evil.example'), 'Content-Type': 'application/json' }, body: '{}' });
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // A body-less POST from the terminal needs the intent header (README, Control plane security).
    expect((await fetch(`${started.url}/__admin/reset`, { method: 'POST' })).status).toBe(403);
    expect((await fetch(`${started.url}/__admin/reset`, { method: 'POST', headers: { 'X-Shipmock-Admin': '1' } })).status).toBe(204);
    expect(await statusWithHost(`${started.url}/__admin/clock`, 'mock.test:4010')).toBe(200);
    expect(await statusWithHost(`${started.url}/__admin/clock`, 'evil.example:4010')).toBe(403);
  });

  it('holds the API and the control plane to one --body-limit', async () => {
    const started = await startServeCli(['--body-limit', '2kb']);
    const body = JSON.stringify({ grantType: 'client_credentials', pad: 'x'.repeat(3000) });
    const json = { 'Content-Type': 'application/json' };
    const [company] = (await (await fetch(`${started.url}/__admin/credentials`)).json()).companies;
    const basic = `Basic ${Buffer.from(`${company.clientId}:${company.clientSecret}`).toString('base64')}`;
    const tokens = `${started.url}/v1/companies/${company.companyId}/tokens`;
    expect((await fetch(tokens, { method: 'POST', headers: { ...json, Authorization: basic }, body })).status).toBe(413);
    expect((await fetch(`${started.url}/__admin/scenarios`, { method: 'POST', headers: json, body })).status).toBe(413);
    // Under the limit, the same control-plane call is read and judged on its content.
    expect((await fetch(`${started.url}/__admin/scenarios`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'rate-limit-burst' }) })).status).toBe(201);
  });

  it('says at start that a non-loopback bind without a key keeps the control plane local', async () => {
    const started = await startServeCli(['--host', '0.0.0.0']);
    expect(started.banner).toMatch(/answers only callers on this machine: bound to 0\.0\.0\.0 without --admin-key/);
  });

  it.each([
    [['--clock', 'sometimes'], /--clock must be real or manual/],
    [['--clock-start', 'yesterday'], /--clock-start must be an ISO 8601 date-time/],
    [['--scenario', 'no-such-scenario'], /no scenario named no-such-scenario/],
    [['--admin-key', 'short'], /--admin-key must be at least 8 characters/],
    [['--admin-origin', '*'], /--admin-origin: "\*" is not an origin/],
    [['--body-limit', 'lots'], /--body-limit "lots" must be a size/],
    [['--admin-origin', 'http://localhost:3000/app'], /--admin-origin: .*\(scheme, host and port only\)/],
  ])('refuses %j with a message', (args, message) => {
    const result = spawnSync(process.execPath, [bin, 'serve', '--port', '0', ...args], { cwd: root, encoding: 'utf8', timeout: 10_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
