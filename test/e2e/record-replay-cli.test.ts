import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { startMock, type RunningMock } from '../../src/server/start-mock.js';

/** The real `shipmock record` and `shipmock serve --replay` commands (bin/shipmock.js → dist/, built before the tests). */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/shipmock.js', import.meta.url));

function startCli(args: string[], ready: RegExp): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no start within 10 s:\n${out}`)), 10_000);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const url = ready.exec(out)?.[1];
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

function runCli(args: string[]): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (chunk) => (err += chunk));
  return exitOf(child).then((code) => ({ code, err }));
}

describe('shipmock record and serve --replay (CLI)', () => {
  let upstream: RunningMock;
  let out: string;
  beforeAll(async () => {
    upstream = await startMock({ port: 0, seed: 9, logger: createLogger({ level: 'silent', format: 'json' }) });
    out = mkdtempSync(join(tmpdir(), 'shipmock-record-cli-'));
  });
  afterAll(async () => {
    await upstream?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('records until SIGTERM, then writes the folder, prints the summary and exits 0; serve --replay answers from it', async () => {
    const recorder = await startCli(['record', '--upstream', upstream.url, '--out', out, '--port', '0', '--log-format', 'json'], /"url":"(http:\/\/[^"]+)"/);
    const basic = `Basic ${Buffer.from(`${upstream.credentials.clientId}:${upstream.credentials.clientSecret}`).toString('base64')}`;
    const token = await fetch(`${recorder.url}/v1/companies/${upstream.credentials.companyId}/tokens`, { method: 'POST', headers: { Authorization: basic, 'Content-Type': 'application/json' }, body: JSON.stringify({ grantType: 'client_credentials' }) });
    const auth = `Bearer ${(await token.json()).accessToken}`;
    const carriers = await fetch(`${recorder.url}/v1/carriers?limit=3`, { headers: { Authorization: auth } });
    const recorded = await carriers.text();
    expect(carriers.status).toBe(200);
    const exit = exitOf(recorder.child);
    recorder.child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(recorder.output()).toContain(`Recorded into ${out}: 2 new exchange(s), 0 already recorded, 2 in the folder`);
    expect(recorder.output()).toContain('Every recorded answer conforms to the contract.');
    expect(readdirSync(out)).toEqual(expect.arrayContaining(['recording.har', 'scenario.json']));

    const replay = await startCli(['serve', '--port', '0', '--replay', out, '--on-miss', 'fail', '--log-level', 'warn'], /listening on (\S+)/);
    try {
      expect(replay.output()).toMatch(/replay\s+.+ \(2 recorded exchange\(s\); a miss goes to a 501 replay-miss problem\)/);
      const again = await fetch(`${replay.url}/v1/carriers?limit=3`, { headers: { Authorization: 'Bearer anything' } });
      expect(again.status).toBe(200);
      expect(await again.text()).toBe(recorded);
      const miss = await fetch(`${replay.url}/v1/carriers?limit=4`);
      expect(miss.status).toBe(501);
    } finally {
      replay.child.kill('SIGKILL');
    }
  });

  it('names what is missing or wrong before anything starts', async () => {
    expect(await runCli(['record', '--upstream', upstream.url])).toMatchObject({ code: 2, err: expect.stringContaining('shipmock record needs --out DIR') });
    expect(await runCli(['serve', '--port', '0', '--on-miss', 'fail'])).toMatchObject({ code: 2, err: expect.stringContaining('--on-miss needs --replay DIR|FILE') });
    expect(await runCli(['serve', '--port', '0', '--replay', out, '--on-miss', 'proxy'])).toMatchObject({ code: 2, err: expect.stringContaining('--on-miss proxy needs --upstream URL') });
    expect(await runCli(['serve', '--port', '0', '--replay', out, '--on-miss', 'never'])).toMatchObject({ code: 2, err: expect.stringContaining('--on-miss must be mock, fail or proxy (got never)') });
    expect(await runCli(['serve', '--port', '0', '--replay', join(out, 'nothing-here')])).toMatchObject({ code: 2, err: expect.stringContaining('no such folder or file') });
  });
});

describe('shipmock record killed mid-run', () => {
  let upstream: RunningMock;
  let out: string;
  beforeAll(async () => {
    upstream = await startMock({ port: 0, seed: 9, logger: createLogger({ level: 'silent', format: 'json' }) });
    out = mkdtempSync(join(tmpdir(), 'shipmock-record-kill-'));
  });
  afterAll(async () => {
    await upstream?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('loses nothing: the next run on the folder takes in what the killed one recorded', async () => {
    const first = await startCli(['record', '--upstream', upstream.url, '--out', out, '--port', '0', '--log-format', 'json'], /"url":"(http:\/\/[^"]+)"/);
    for (const limit of [1, 2, 3]) expect((await fetch(`${first.url}/v1/carriers?limit=${limit}`)).status).toBe(401);
    // The part file is written off the request's path: wait until the three entries are in it.
    const part = join(out, 'recording.har.part');
    for (let i = 0; i < 100 && !(existsSync(part) && readFileSync(part, 'utf8').split('\n').filter(Boolean).length === 3); i++) await new Promise((r) => setTimeout(r, 50));
    const killed = exitOf(first.child);
    first.child.kill('SIGKILL');
    await killed;
    expect(readdirSync(out)).not.toContain('recording.har');

    const second = await startCli(['record', '--upstream', upstream.url, '--out', out, '--port', '0', '--log-format', 'json'], /"url":"(http:\/\/[^"]+)"/);
    expect(second.output()).toContain('"found":3');
    expect((await fetch(`${second.url}/v1/carriers?limit=1`)).status).toBe(401);
    const exit = exitOf(second.child);
    second.child.kill('SIGINT');
    expect(await exit).toBe(0);
    expect(second.output()).toContain(`Recorded into ${out}: 0 new exchange(s), 1 already recorded, 3 in the folder`);
    expect(readdirSync(out).sort()).toEqual(['.shipmock-record.lock', 'recording.har', 'scenario.json']);
    expect(JSON.parse(readFileSync(join(out, 'recording.har'), 'utf8')).log.entries).toHaveLength(3);
  });
});
