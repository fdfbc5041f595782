import { readFileSync } from 'node:fs';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConformanceSuite, type ConformanceTarget } from './conformance-suite.js';

/** The real `shipmock` command (bin/shipmock.js → dist/, built by `npm run build` before the tests). */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

function startCli(args: string[]): Promise<{ child: ChildProcess; output: () => string; ready: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no start within 10 s:\n${out}`)), 10_000);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (/listening/.test(out)) {
        clearTimeout(timer);
        resolve({ child, output: () => out, ready: out });
      }
    });
    child.stderr!.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => reject(new Error(`exited ${code} before listening:\n${out}`)));
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('conformance: the shipmock CLI', () => {
  let started: Awaited<ReturnType<typeof startCli>>;
  let target: ConformanceTarget;
  beforeAll(async () => {
    started = await startCli(['--port', '0', '--seed', '3', '--log-level', 'warn']);
    const field = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(started.ready)![1];
    target = {
      url: /listening on (\S+)/.exec(started.ready)![1],
      companyId: field('company id'),
      clientId: field('client id'),
      clientSecret: field('client secret'),
    };
  });
  afterAll(() => started.child.kill('SIGKILL'));

  it('prints a free port and the default credentials', () => {
    expect(target.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(target.url).not.toMatch(/:4010$/);
    expect(target.clientId).toBe('shipmock-demo-client');
    expect(target.companyId).toMatch(/^[0-9a-f-]{36}$/);
  });

  defineConformanceSuite(() => target);

  it('closes cleanly on SIGTERM', async () => {
    const exit = exitOf(started.child);
    started.child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});

describe('shipmock CLI options', () => {
  it('writes structured JSON logs with --log-format json', async () => {
    const { child, output } = await startCli(['--port', '0', '--log-format', 'json']);
    const url = JSON.parse(output().trim().split('\n').find((l) => l.includes('listening'))!).url;
    await fetch(`${url}/v1/unknown`);
    // The request's log line is written when the response finishes; wait for it, bounded.
    const deadline = Date.now() + 5_000;
    while (!output().includes('GET /v1/unknown') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const exit = exitOf(child);
    child.kill('SIGTERM');
    await exit;
    const lines = output().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.some((l) => l.msg === 'GET /v1/unknown' && l.status === 404)).toBe(true);
  });

  it('overrides the default credentials from flags', async () => {
    const { child, output } = await startCli(['--port', '0', '--client-id', 'ci-client', '--client-secret', 'ci-secret']);
    expect(output()).toMatch(/client id\s+ci-client/);
    child.kill('SIGKILL');
  });

  it('refuses an unknown flag with exit code 2 and a message', () => {
    const result = spawnSync(process.execPath, [bin, 'serve', '--prot', '4010'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/unknown flag --prot/);
  });

  it('prints its version with --version and -v, the one in package.json', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-v']) {
      const result = spawnSync(process.execPath, [bin, flag], { cwd: root, encoding: 'utf8' });
      expect(result.status).toBe(0);
      expect(result.stdout).toBe(`shipmock ${version}\n`);
    }
  });

  it('refuses a word flag with a word it does not know, naming the flag and the words', () => {
    const result = spawnSync(process.execPath, [bin, 'serve', '--log-format', 'xml'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--log-format must be pretty or json \(got xml\)/);
  });

  it('prints usage with --help', () => {
    const result = spawnSync(process.execPath, [bin, 'serve', '--help'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/--seed N/);
  });
});
