import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { exchangeToHarEntry, HAR_CREATOR } from '../../src/recording/index.js';

/**
 * `shipmock scenario from-har` as a user runs it (bin/shipmock.js → dist/, npm run build first):
 * a HAR becomes a scenario file that `serve --scenario` loads; a HAR it cannot read is one clear
 * line and exit 2, and writes nothing.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'shipmock.js');
const dir = mkdtempSync(join(tmpdir(), 'shipmock-from-har-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
const harFile = (name: string, har: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof har === 'string' ? har : JSON.stringify(har));
  return path;
};

describe('shipmock scenario from-har', () => {
  it('writes a recorded scenario (no secret in it) and reports what it left out', () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbGkifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
    const entries = [
      exchangeToHarEntry({ request: { method: 'GET', url: 'http://127.0.0.1:4010/v1/addresses?limit=5', headers: { Authorization: `Bearer ${token}` } }, response: { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"items":[],"hasMore":false}' } }),
      exchangeToHarEntry({ request: { method: 'GET', url: 'http://127.0.0.1:3000/app.js', headers: {} }, response: { status: 200, headers: { 'Content-Type': 'text/javascript' }, body: 'console.log(1)' } }),
    ];
    // Written by hand here: exchangeToHarEntry shortens secrets, a browser's HAR does not.
    entries[0].request.headers = [{ name: 'Authorization', value: `Bearer ${token}` }];
    const path = harFile('Checkout Session.har', { log: { version: '1.2', creator: HAR_CREATOR, entries } });
    const result = run('scenario', 'from-har', path, '--out', 'checkout.json');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/1 exchanges → 1 rules in checkout\.json/);
    expect(result.stderr).toMatch(/entry 1: GET \/app\.js is no operation of the contract/);
    const text = readFileSync(join(dir, 'checkout.json'), 'utf8');
    expect(text).not.toContain(token.slice(0, 12));
    const scenario = JSON.parse(text);
    expect(scenario).toMatchObject({ name: 'checkout-session', rules: [{ name: 'listAddresses', match: { method: 'GET', path: '/v1/addresses', operationId: 'listAddresses', query: { limit: '5' } } }] });
    expect(scenario.rules[0].effect.respond).toEqual({ status: 200, headers: { 'Content-Type': 'application/json' }, body: { items: [], hasMore: false } });
  });

  it.each([
    ['not JSON', 'HAR? no', /is not JSON \(a HAR file is\)/],
    ['not a HAR', { entries: [] }, /not a HAR 1\.2 document: har\/log is required/],
    ['base64 garbage', { log: { entries: [{ request: { method: 'GET', url: 'http://x/v1/addresses', headers: [] }, response: { status: 200, headers: [], content: { text: '***', encoding: 'base64' } } }] } }, /har\/log\/entries\/0\/response\/content\/text is not base64/],
    ['nothing to answer', { log: { entries: [{ request: { method: 'GET', url: 'http://x/', headers: [] }, response: { status: 0, headers: [], content: {} } }] } }, /holds no exchange to answer/],
  ])('%s: one line naming the problem, exit 2, nothing written', (name, har, message) => {
    const out = `${name.replace(/\W/g, '-')}.json`;
    const result = run('scenario', 'from-har', harFile(`${name}.har`, har), '--out', out);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(() => readFileSync(join(dir, out))).toThrow();
  });

  it('a missing file or usage error is exit 2 too', () => {
    expect(run('scenario', 'from-har', 'missing.har').stderr).toMatch(/cannot read missing\.har/);
    expect(run('scenario', 'from-har').status).toBe(2);
    expect(run('scenario', 'from-har', '--help').stdout).toMatch(/Usage: shipmock scenario from-har FILE/);
  });
});
