import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

/** `shipmock serve` configured by SHIPMOCK_* variables (README, Configuration by environment), through the real bin/shipmock.js. */
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shipmock-env-'));
const children: ChildProcess[] = [];

/** The variables of this test only: none of the test runner's SHIPMOCK_* leak in. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SHIPMOCK_')));
  return { ...env, ...extra };
}

function run(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [bin, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  return { child, output: () => out, exit: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

async function started(args: string[], env: Record<string, string>) {
  const cli = run(args, env);
  await expect.poll(cli.output, { timeout: 30_000, interval: 50 }).toMatch(/company token/);
  const banner = cli.output();
  return { ...cli, banner, url: /listening on (\S+)/.exec(banner)![1] };
}

/** A GET on a connection of its own (so --workers spreads them over the workers). */
function getStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('shipmock serve configured by environment', () => {
  it('takes its settings from SHIPMOCK_* variables, lets flags win, and warns about an unknown one', async () => {
    const mock = await started(['serve', '--client-secret', 'secret-from-the-flag'], {
      SHIPMOCK_PORT: '0',
      SHIPMOCK_CLIENT_ID: 'client-from-env',
      SHIPMOCK_CLIENT_SECRET: 'secret-from-env',
      SHIPMOCK_CLOCK: 'manual',
      SHIPMOCK_ADMIN_KEY: 'env-admin-key-1',
      SHIPMOCK_PROT: '4011',
    });
    expect(mock.banner).toMatch(/client id\s+client-from-env/);
    expect(mock.banner).toMatch(/client secret\s+secret-from-the-flag/);
    expect(mock.banner).toMatch(/clock\s+manual/);
    expect(mock.banner).toContain('SHIPMOCK_PROT is not a shipmock setting and is ignored');
    // The key from the environment guards the control plane, even for callers on this machine.
    expect(await getStatus(`${mock.url}/__admin/state/overview`)).toBe(401);
    expect(await getStatus(`${mock.url}/__admin/state/overview`, { 'X-Admin-Key': 'env-admin-key-1' })).toBe(200);
    // A generated key is printed only when generated.
    expect(mock.banner).not.toMatch(/admin key/);
  });

  it('refuses a bad value naming the variable, and exits 2', async () => {
    const port = run(['serve'], { SHIPMOCK_PORT: 'eighty' });
    expect(await port.exit).toBe(2);
    expect(port.output()).toContain('shipmock: SHIPMOCK_PORT: --port needs a number, got eighty');
    const format = run(['serve'], { SHIPMOCK_PORT: '0', SHIPMOCK_LOG_FORMAT: 'xml' });
    expect(await format.exit).toBe(2);
    expect(format.output()).toContain('--log-format must be pretty or json (got xml) (from SHIPMOCK_LOG_FORMAT)');
  });

  it('generates an admin key for SHIPMOCK_ADMIN_KEY=auto, prints it once, and every worker of --workers 2 accepts it', async () => {
    const mock = await started(['serve'], { SHIPMOCK_PORT: '0', SHIPMOCK_ADMIN_KEY: 'auto', SHIPMOCK_WORKERS: '2', SHIPMOCK_DATA: join(dir, 'workers.db'), SHIPMOCK_LOG_LEVEL: 'warn' });
    const key = /admin key\s+(\S+)/.exec(mock.banner)![1];
    expect(key).toMatch(/^[\w-]{24}$/);
    expect(mock.banner.match(/admin key/g)).toHaveLength(1);
    expect(mock.banner).toMatch(/workers\s+2 processes/);
    // Connections of their own go to both workers in turn (node:cluster round-robin).
    const statuses = await Promise.all(Array.from({ length: 8 }, () => getStatus(`${mock.url}/__admin/state/overview`, { 'X-Admin-Key': key })));
    expect(statuses).toEqual(Array(8).fill(200));
    expect(await getStatus(`${mock.url}/__admin/state/overview`)).toBe(401);
  });
});
