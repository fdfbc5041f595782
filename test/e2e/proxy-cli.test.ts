import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { startMock, type RunningMock } from '../../src/server/start-mock.js';

/** The real `shipmock proxy` command (bin/shipmock.js → dist/, built before the tests). */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

function startProxyCli(upstream: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'proxy', '--upstream', upstream, '--port', '0', '--log-format', 'json'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no start within 10 s:\n${out}`)), 10_000);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const url = /"url":"(http:\/\/[^"]+)"/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, output: () => out });
      }
    });
    child.stderr!.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => reject(new Error(`exited ${code} before listening:\n${out}`)));
  });
}

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

describe('shipmock proxy (CLI)', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ port: 0, logger: createLogger({ level: 'silent', format: 'json' }) });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('logs each exchange, prints the summary at SIGTERM and exits 0 when the upstream conforms', async () => {
    const proxy = await startProxyCli(mock.url);
    const res = await fetch(`${proxy.url}/v1/companies/${mock.credentials.companyId}/tokens`, {
      method: 'POST',
      headers: { Authorization: `Basic ${Buffer.from(`${mock.credentials.clientId}:${mock.credentials.clientSecret}`).toString('base64')}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ grantType: 'client_credentials' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-shipmock-violations')).toBe('[]');
    expect(res.headers.get('x-shipmock-violations-count')).toBe('0');
    const exit = exitOf(proxy.child);
    proxy.child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(proxy.output()).toContain('"msg":"conforms to the contract"');
    expect(proxy.output()).toMatch(/^1 request\(s\), 0 with contract violations \(0 violation\(s\) in total\)$/m);
    expect(proxy.output()).toMatch(/issueCompanyToken\s+1 request\(s\)\s+0 violation\(s\)/);
  });

  it('exits 1 after violations and lists them in the summary', async () => {
    const proxy = await startProxyCli(mock.url);
    const res = await fetch(`${proxy.url}/v1/no-such-path`);
    expect(res.headers.get('x-shipmock-violations-count')).toBe('1');
    const exit = exitOf(proxy.child);
    proxy.child.kill('SIGTERM');
    expect(await exit).toBe(1);
    expect(proxy.output()).toContain('"msg":"1 contract violation(s)"');
    expect(proxy.output()).toContain('1×  GET /v1/no-such-path request route GET /v1/no-such-path no operation of the contract has this path');
  });

  it('refuses to start without --upstream', async () => {
    const child = spawn(process.execPath, [bin, 'proxy'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (chunk) => (err += chunk));
    expect(await exitOf(child)).toBe(2);
    expect(err).toContain('shipmock proxy needs --upstream URL');
  });
});
