/**
 * The README's shell examples run as pasted, in order, against a fresh mock (README, Follow along).
 *
 * Every ```sh / ```bash / ```shell block of README.md is extracted in order. A block preceded by
 * `<!-- readme-test: skip — <reason> -->` is left out (it starts other servers, calls a real
 * service, …); one preceded by `<!-- readme-test: expect 401 403 -->` may get those statuses (and
 * must). All other blocks run in ONE bash process, like a reader pasting them into one terminal,
 * against one fresh `shipmock serve` from dist/ on a free port (the README's 127.0.0.1:4010 is
 * rewritten to it). Blocks that start mocks of their own (`npx shipmock serve --port 4011 &`) get
 * a free port each in place of the README's (and 127.0.0.1 for --host 0.0.0.0); `npx` runs this
 * checkout's bin/shipmock.js and the project's installed tools, as npx does for installed packages
 * (test/e2e/package.test.ts runs the real npx on the packed tarball); everything the blocks
 * started is stopped when they end. A start-up wait loop's refused `curl …/__admin/health` is not
 * a failure. A `curl` wrapper first on PATH runs the real curl and records every HTTP status
 * with the block it came from; the test fails on a block that exits non-zero and on any status
 * outside 2xx/3xx that the block's marker does not expect, naming the block's first line and its
 * README line.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const readmePath = join(root, 'README.md');
const bin = join(root, 'bin', 'shipmock.js');

/** How long all runnable blocks together may take (about 10 s; Pact verification on a busy machine, much more). */
const SCRIPT_TIMEOUT_MS = 180_000;
const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell']);
const MARKER = /^\s*<!--\s*readme-test:\s*(.*?)\s*-->\s*$/;

interface ShellBlock {
  /** 1-based position among the README's shell blocks. */
  index: number;
  /** README line (1-based) of the block's first line of code. */
  line: number;
  code: string;
  firstLine: string;
  skip?: string;
  expect: number[];
}

/** Shell blocks of a Markdown text in order, with their markers; `problems` lists malformed or stray markers. */
function extractShellBlocks(markdown: string): { blocks: ShellBlock[]; problems: string[] } {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  const problems: string[] = [];
  const usedMarkers = new Set<number>();
  let fence: { char: string; length: number; shell: boolean; start: number } | undefined;
  let body: string[] = [];
  lines.forEach((text, i) => {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(text);
    if (!fence) {
      if (!open) return;
      fence = { char: open[1][0], length: open[1].length, shell: SHELL_LANGUAGES.has(open[2].toLowerCase()), start: i };
      body = [];
      return;
    }
    const close = new RegExp(`^ {0,3}${fence.char === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(text);
    if (!close) {
      body.push(text);
      return;
    }
    if (fence.shell) {
      const block: ShellBlock = {
        index: blocks.length + 1,
        line: fence.start + 2,
        code: body.join('\n'),
        firstLine: body.find((l) => l.trim() !== '')?.trim() ?? '(empty)',
        expect: [],
      };
      const marker = MARKER.exec(lines[fence.start - 1] ?? '');
      if (marker) {
        usedMarkers.add(fence.start - 1);
        const where = `README.md:${fence.start} (before "${block.firstLine}")`;
        const skip = /^skip\b\s*(?:[—–:-]+\s*)?(.*)$/.exec(marker[1]);
        const expected = /^expect\s+(.*)$/.exec(marker[1]);
        if (skip) {
          if (skip[1].trim() === '') problems.push(`${where}: a skip marker needs a reason: <!-- readme-test: skip — <reason> -->`);
          block.skip = skip[1].trim() || '(no reason)';
        } else if (expected && /^\d{3}(\s+\d{3})*$/.test(expected[1].trim())) {
          block.expect = expected[1].trim().split(/\s+/).map(Number);
        } else {
          problems.push(`${where}: unknown marker "${marker[1]}" (use "skip — <reason>" or "expect <status> …")`);
        }
      }
      blocks.push(block);
    }
    fence = undefined;
  });
  if (fence) problems.push(`README.md:${fence.start + 1}: a code fence is never closed`);
  lines.forEach((text, i) => {
    if (MARKER.test(text) && !usedMarkers.has(i)) problems.push(`README.md:${i + 1}: a readme-test marker that is not right before a shell block`);
  });
  return { blocks, problems };
}

/** The curl wrapper: the real curl, plus "<block>\t<status>\t<method>\t<url>\t<exit>\t<script line>" per transfer in the side file. */
function curlWrapper(realCurl: string): string {
  return `#!/usr/bin/env bash
# README test: run the real curl and record the HTTP status of every transfer with the block index.
user_format=
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -w|--write-out) user_format=$2; shift; shift || true; continue ;;
    -[a-zA-Z]*w) args+=("\${1%w}"); user_format=$2; shift; shift || true; continue ;;  # e.g. -sw FORMAT
  esac
  args+=("$1")
  shift
done
errors=$(mktemp)
${JSON.stringify(realCurl)} -q "\${args[@]}" --write-out "\${user_format}%{stderr}@@READMETEST %{http_code} %{method} %{url_effective}\\n" 2>"$errors"
status=$?
grep -oE '@@READMETEST .*$' "$errors" | while read -r _ code method url; do
  printf '%s\\t%s\\t%s\\t%s\\t%s\\t%s\\n' "\${READMETEST_BLOCK:-0}" "$code" "$method" "$url" "$status" "\${READMETEST_LINE:-0}" >> "$READMETEST_STATUS_FILE"
done
sed -E '/^@@READMETEST /d; s/@@READMETEST .*$//' "$errors" >&2
rm -f "$errors"
exit $status
`;
}

/**
 * `npx NAME ARGS`: shipmock from this checkout, any other package from the project's node_modules
 * (its bin, as npx runs an installed package), in the blocks' own folder; never the registry.
 */
function npxShim(): string {
  return `#!/usr/bin/env bash
name=$1; shift
if [ "$name" = shipmock ]; then exec ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} "$@"; fi
bin=$(${JSON.stringify(process.execPath)} -e 'const p=require(process.argv[1]+"/node_modules/"+process.argv[2]+"/package.json"); const b=typeof p.bin==="string"?p.bin:Object.values(p.bin)[0]; console.log(process.argv[1]+"/node_modules/"+process.argv[2]+"/"+b)' ${JSON.stringify(root)} "$name") || { echo "npx (README test): $name is not installed in the project" >&2; exit 127; }
exec ${JSON.stringify(process.execPath)} "$bin" "$@"
`;
}

/** The README's fixed ports of extra mocks (`--port 4011`), each given a free one; 4010 is the main mock's. */
async function portsOf(blocks: ShellBlock[]): Promise<Map<string, string>> {
  const ports = new Map<string, string>();
  for (const block of blocks) {
    for (const match of block.code.matchAll(/--port (\d{4,5})\b/g)) {
      if (match[1] === '4010' || ports.has(match[1])) continue;
      ports.set(match[1], String(await freePort()));
    }
  }
  return ports;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function which(command: string): string | undefined {
  const found = spawnSync('bash', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() || undefined : undefined;
}

interface StartedMock {
  child: ChildProcess;
  url: string;
  output: () => string;
}

function startMock(): Promise<StartedMock> {
  return new Promise((resolve, reject) => {
    // As a fresh `npm start` (defaults, seeded default company) — only the port is free-picked.
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'warn'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the mock did not start within 10 s:\n${out}`)), 10_000);
    const onData = (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-20_000);
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the mock exited ${code} before listening:\n${out}`));
    });
  });
}

interface ScriptResult {
  exitCode: number | null;
  timedOut: boolean;
  output: string;
}

function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<ScriptResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-40_000));
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, SCRIPT_TIMEOUT_MS);
    // What the blocks started in the background (mocks on their own ports) ends with them; they
    // hold the output pipes, so 'close' comes only after they are gone.
    child.on('exit', () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // nothing left
      }
    });
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, timedOut, output });
    });
  });
}

const readme = readFileSync(readmePath, 'utf8');
const { blocks, problems: markerProblems } = extractShellBlocks(readme);
const describeBlock = (b: ShellBlock) => `block ${b.index} at README.md:${b.line} ("${b.firstLine}")`;

describe('README shell examples', () => {
  it('finds the shell blocks, and every readme-test marker is well-formed and right before one', () => {
    expect(blocks.length).toBeGreaterThan(5);
    expect(blocks.filter((b) => !b.skip).length).toBeGreaterThan(5);
    expect(markerProblems, markerProblems.join('\n')).toEqual([]);
    for (const block of blocks.filter((b) => b.skip)) expect(block.skip, describeBlock(block)).toMatch(/\S{3}/);
    // Which blocks CI runs and which it leaves out, and why (kept in the test log).
    console.log(blocks.map((b) => `${b.skip ? 'skipped' : 'tested '} ${describeBlock(b)}${b.skip ? `: ${b.skip}` : ''}`).join('\n'));
  });

  describe('run in order against a fresh mock', () => {
    let mock: StartedMock | undefined;
    let work: string;

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'shipmock-readme-'));
      if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
      mock = await startMock();
    });

    afterAll(async () => {
      if (mock && mock.child.exitCode === null) {
        const exited = new Promise((resolve) => mock!.child.once('exit', resolve));
        mock.child.kill('SIGTERM');
        const timer = setTimeout(() => mock!.child.kill('SIGKILL'), 3_000);
        await exited;
        clearTimeout(timer);
      }
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('every runnable block exits 0 and gets only the statuses the README leads one to expect', { timeout: SCRIPT_TIMEOUT_MS + 30_000 }, async () => {
      const realCurl = which('curl');
      expect(realCurl, 'curl is not installed: the README examples need it').toBeTruthy();
      expect(which('jq'), 'jq is not installed: the README examples need it').toBeTruthy();

      const port = new URL(mock!.url).port;
      const wrapperDir = join(work, 'bin');
      const cwd = join(work, 'cwd');
      mkdirSync(wrapperDir);
      mkdirSync(cwd);
      writeFileSync(join(wrapperDir, 'curl'), curlWrapper(realCurl!));
      chmodSync(join(wrapperDir, 'curl'), 0o755);
      writeFileSync(join(wrapperDir, 'npx'), npxShim());
      chmodSync(join(wrapperDir, 'npx'), 0o755);
      // What the blocks read from a clone (the contract, the committed pacts), read-only through links.
      for (const folder of ['contract', 'pacts']) symlinkSync(join(root, folder), join(cwd, folder));
      const statusFile = join(work, 'statuses.tsv');
      const eventFile = join(work, 'events.tsv');
      writeFileSync(statusFile, '');
      writeFileSync(eventFile, '');

      const runnable = blocks.filter((b) => !b.skip);
      const problems: string[] = [];
      const ports = await portsOf(runnable);
      const rewrite = (code: string) => {
        let out = code.replace(/(127\.0\.0\.1|localhost):4010\b/g, `$1:${port}`).replace(/--host 0\.0\.0\.0\b/g, '--host 127.0.0.1');
        for (const [from, to] of ports) out = out.replace(new RegExp(`(--port |127\\.0\\.0\\.1:|localhost:)${from}\\b`, 'g'), `$1${to}`);
        return out;
      };

      // Each block on its own must at least parse (a stray quote would swallow the blocks after it).
      for (const block of runnable) {
        const file = join(work, `block-${block.index}.sh`);
        writeFileSync(file, block.code + '\n');
        const check = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
        if (check.status !== 0) problems.push(`${describeBlock(block)}: not valid bash: ${check.stderr.trim()}`);
      }
      expect(problems, problems.join('\n')).toEqual([]);

      // One script, one bash process: variables set by a block stay set for the next ones.
      const header = [
        'set -eo pipefail',
        // The line of the command about to run, for the curl wrapper (functrace: also inside $(…)).
        'set -T',
        'export READMETEST_LINE=0',
        `trap 'READMETEST_LINE=$LINENO' DEBUG`,
        `export PATH=${JSON.stringify(wrapperDir)}:"$PATH"`,
        `export READMETEST_STATUS_FILE=${JSON.stringify(statusFile)}`,
        `READMETEST_EVENTS=${JSON.stringify(eventFile)}`,
        `trap 'READMETEST_ERRLINE=$LINENO' ERR`,
        `trap 'printf "exit\\t%s\\t%s\\t%s\\n" "\${READMETEST_BLOCK:-0}" "$?" "\${READMETEST_ERRLINE:-}" >> "$READMETEST_EVENTS"' EXIT`,
      ];
      const scriptLines = [...header];
      const startOf = new Map<number, number>(); // block index → script line of its first code line
      for (const block of runnable) {
        scriptLines.push(`export READMETEST_BLOCK=${block.index}`, `printf 'begin\\t${block.index}\\n' >> "$READMETEST_EVENTS"`);
        startOf.set(block.index, scriptLines.length + 1);
        scriptLines.push(...rewrite(block.code).split('\n'));
        scriptLines.push(`printf 'end\\t${block.index}\\n' >> "$READMETEST_EVENTS"`);
      }
      const script = join(work, 'readme.sh');
      writeFileSync(script, scriptLines.join('\n') + '\n');

      const started = Date.now();
      const env: NodeJS.ProcessEnv = { ...process.env, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' };
      delete env.READMETEST_BLOCK;
      const result = await runScript(script, cwd, env);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);

      const events = readFileSync(eventFile, 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t'));
      const ended = new Set(events.filter((e) => e[0] === 'end').map((e) => Number(e[1])));
      const exit = events.find((e) => e[0] === 'exit');
      const byIndex = new Map(runnable.map((b) => [b.index, b]));
      /** README line of a line of the script, if it lies within that block's code. */
      const readmeLineOf = (block: ShellBlock, scriptLine: number) => {
        const offset = scriptLine - startOf.get(block.index)!;
        return offset >= 0 && offset < block.code.split('\n').length ? block.line + offset : undefined;
      };

      const statuses = readFileSync(statusFile, 'utf8').split('\n').filter(Boolean).map((l) => {
        const [index, code, method, url, , line] = l.split('\t');
        return { index: Number(index), code: Number(code), method, url, scriptLine: Number(line) };
      });
      for (const s of statuses) {
        const block = byIndex.get(s.index);
        if (!block) {
          problems.push(`a curl outside any block: ${s.method} ${s.url} → ${s.code}`);
          continue;
        }
        // A start-up wait (`until curl -fs …/__admin/health`) is refused until the mock listens.
        const waiting = s.code === 0 && /\/__admin\/health$/.test(s.url);
        const fine = (s.code >= 200 && s.code < 400) || block.expect.includes(s.code) || waiting;
        if (!fine) {
          const hint = block.expect.length > 0 ? `the marker expects only ${block.expect.join(' ')}` : 'no <!-- readme-test: expect … --> marker says so';
          const at = readmeLineOf(block, s.scriptLine);
          const request = `${s.method} ${s.url}${at ? ` (the command near README.md:${at})` : ''}`;
          problems.push(`${describeBlock(block)}: ${request} answered ${s.code === 0 ? '000 (no answer)' : s.code}, but ${hint}`);
        }
      }
      for (const block of runnable.filter((b) => b.expect.length > 0 && ended.has(b.index))) {
        const seen = new Set(statuses.filter((s) => s.index === block.index).map((s) => s.code));
        for (const code of block.expect) {
          if (!seen.has(code)) problems.push(`${describeBlock(block)}: its marker expects ${code}, but no request of the block got it`);
        }
      }
      // Then how the run ended (after the statuses: a failing request usually explains the exit).
      if (result.timedOut) problems.push(`the blocks did not finish within ${SCRIPT_TIMEOUT_MS / 1000} s (killed)`);
      if (result.exitCode !== 0 && exit) {
        const block = byIndex.get(Number(exit[1]));
        const readmeLine = block && readmeLineOf(block, Number(exit[3]));
        problems.push(
          block
            ? `${describeBlock(block)} exited ${exit[2]}${readmeLine ? `; the failing command is at README.md:${readmeLine}` : ''}`
            : `the script exited ${exit[2]} before the first block`,
        );
      } else if (result.exitCode !== 0) {
        problems.push(`bash exited ${result.exitCode} without a trace`);
      }
      const notRun = runnable.filter((b) => !ended.has(b.index));
      if (notRun.length > 0 && result.exitCode === 0 && !result.timedOut) problems.push(`blocks that did not run to their end: ${notRun.map(describeBlock).join(', ')}`);

      const requests = statuses.length;
      expect(problems, `${problems.join('\n')}\n\n--- output of the blocks (tail) ---\n${result.output.slice(-6_000)}\n--- mock output (tail) ---\n${mock!.output().slice(-3_000)}`).toEqual([]);
      // A vacuous pass (no request made at all) would prove nothing.
      expect(requests, `only ${requests} requests in ${seconds} s`).toBeGreaterThan(10);
    });
  });
});
