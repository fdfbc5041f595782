/**
 * The CLI messages a newcomer meets first (issue 25): each mistake is a real `shipmock` process
 * that exits 2 with one line naming the flag (and the remedy), never a bare ENOENT/EADDRINUSE,
 * and never a mock started on the wrong port.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'shipmock.js');

/** The CLI's environment without whatever npm script runs this test (npm test sets npm_* variables). */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, ...extra };
}

function shipmock(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): SpawnSyncReturns<string> {
  // A mock that starts by mistake must not outlive the test: 10 s, then killed (and the test fails on its status).
  return spawnSync(process.execPath, [bin, ...args], { cwd: options.cwd ?? root, env: options.env ?? cleanEnv(), encoding: 'utf8', timeout: 10_000, killSignal: 'SIGKILL' });
}

describe('shipmock CLI: messages a newcomer meets', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'shipmock-newcomer-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  describe('a port in use', () => {
    let holder: Server;
    let port: number;
    beforeAll(async () => {
      holder = createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      port = (holder.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

    it('names --port and the port, and how to get a free one', () => {
      const run = shipmock(['serve', '--port', String(port), '--log-level', 'warn']);
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(run.stderr).toContain('--port N');
      expect(run.stderr).toContain('--port 0');
      expect(run.stderr).not.toMatch(/EADDRINUSE/);
    });
  });

  it('a missing --contract file names the flag and the path it looked at', () => {
    const run = shipmock(['serve', '--port', '0', '--contract', 'no-such-contract.yaml'], { cwd: work });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr.trim()).toBe(`shipmock: --contract no-such-contract.yaml: no such file (${join(work, 'no-such-contract.yaml')})`);
  });

  it('a missing --credentials file names the flag', () => {
    const run = shipmock(['serve', '--port', '0', '--credentials', join(work, 'creds.json')]);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain(`--credentials ${join(work, 'creds.json')}: no such file`);
  });

  it.each(['--data', '--state-file'])('%s in a folder that does not exist names the folder, and creates nothing', (flag) => {
    const folder = join(work, 'not-there', 'deeper');
    const run = shipmock(['serve', '--port', '0', flag, join(folder, 'state.db')]);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain(`${flag} ${join(folder, 'state.db')}: the folder ${folder} does not exist`);
    expect(run.stderr).toContain(`mkdir -p ${folder}`);
    expect(existsSync(join(work, 'not-there'))).toBe(false);
  });

  it('a postgres:// --data URL is not taken for a folder', () => {
    // The URL's "folder" does not exist on disk; the check must leave it to the store (which then fails to connect: port 1).
    const run = shipmock(['serve', '--port', '0', '--log-level', 'silent', '--data', 'postgres://postgres@127.0.0.1:1/nothing']);
    expect(run.stderr).not.toContain('does not exist; create it first');
  });

  it.each(['-h', 'serve -h'])('shipmock %s prints the usage of serve', (command) => {
    const run = shipmock(command.split(' '));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: shipmock serve \[options\]/);
    expect(run.stdout).toContain('--port N');
  });

  it.each(['verify', 'proxy'])('shipmock %s -h prints that command’s usage', (command) => {
    const run = shipmock([command, '-h']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: shipmock ${command}`));
  });

  it('flags without a command start serve (shipmock --port N): --help shows it', () => {
    const run = shipmock(['--port', '0', '--help']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: shipmock serve/);
  });

  it('a stray argument is refused instead of ignored', () => {
    const run = shipmock(['serve', '4011']);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain('unexpected argument 4011');
  });

  describe('npm start --port N without -- (npm keeps the flag)', () => {
    let project: string;
    beforeAll(() => {
      // A project whose start script runs this shipmock, as the repository's own `npm start` does (minus its build).
      project = join(work, 'npm-project');
      spawnSync('mkdir', ['-p', project]);
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'newcomer', version: '1.0.0', private: true, scripts: { start: `node ${JSON.stringify(bin)} serve --log-level warn` } }));
    });

    /** Real npm; the mock it would start on the wrong port is killed by the timeout if the check fails. */
    function npmStart(args: string[]): Promise<{ code: number | null; output: string }> {
      return new Promise((resolve) => {
        const child = spawn('npm', ['start', '--silent', ...args], { cwd: project, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
        let output = '';
        child.stdout!.on('data', (chunk) => (output += chunk));
        child.stderr!.on('data', (chunk) => (output += chunk));
        const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, output });
        });
      });
    }

    it('npm start --port 4011 is explained: the flag goes after --', async () => {
      const run = await npmStart(['--port', '4011']);
      expect(run.output).not.toContain('listening');
      expect(run.code).not.toBe(0);
      expect(run.output).toContain('npm kept --port for itself (it set npm_config_port');
      expect(run.output).toContain('npm start -- --port 4011');
    });

    it('npm start --port=4011 --tls is explained too, both flags named', async () => {
      const run = await npmStart(['--port=4011', '--tls']);
      expect(run.output).not.toContain('listening');
      expect(run.output).toMatch(/npm kept --port, --tls for itself/);
      expect(run.output).toContain('npm start -- --port 4011 --tls');
    });

    it('npm start -- --port 0 (the right spelling) starts the mock', async () => {
      const child = spawn('npm', ['start', '--silent', '--', '--port', '0'], { cwd: project, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let output = '';
      const listening = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 20_000);
        const onData = (chunk: Buffer) => {
          output += chunk;
          if (/listening on http:\/\/127\.0\.0\.1:\d+/.test(output)) {
            clearTimeout(timer);
            resolve(true);
          }
        };
        child.stdout!.on('data', onData);
        child.stderr!.on('data', onData);
        child.on('close', () => resolve(false));
      });
      process.kill(-child.pid!, 'SIGKILL');
      expect(listening, output).toBe(true);
      expect(output).not.toContain('listening on http://127.0.0.1:4010');
    });
  });
});
