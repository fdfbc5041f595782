/**
 * The npm package as a newcomer gets it (issue 25): what `npm pack` puts in the tarball, and
 * `npx shipmock` from that tarball installed into an empty folder.
 *
 * The tarball is packed once for the file, from the built dist/ with --ignore-scripts (`prepare`
 * would build again; the test suite builds first): its report lists what it holds. The install is a real `npm install <tarball>` into an empty
 * project: --prefer-offline takes every dependency from the npm cache that `npm ci` filled (the
 * registry only for what is missing), --no-package-lock writes no lockfile, and --ignore-scripts
 * skips better-sqlite3's compile (about 60 s; the native binding loads only with --data, which
 * this test does not use). `npm run bench -- --cold` measures the same install with scripts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> };

/** npm's own variables of whatever npm script runs the suite, kept away from the npm and shipmock run here. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, NO_UPDATE_NOTIFIER: '1', ...extra };
}

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, env: cleanEnv(), encoding: 'utf8', timeout: 280_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

interface Packed {
  /** The folder the tarball is in (removed after the file). */
  work: string;
  /** The tarball's file name, as npm reports it. */
  filename: string;
  /** Every path in the tarball. */
  files: string[];
  ms: number;
}
let packed: Packed | undefined;

/** `npm pack --json` of this checkout, once for the file: both groups below read the same tarball. */
function packOnce(): Packed {
  if (packed) return packed;
  if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const work = mkdtempSync(join(tmpdir(), 'shipmock-package-'));
  const t0 = performance.now();
  const [report] = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], root)) as { filename: string; files: { path: string }[] }[];
  packed = { work, filename: report.filename, files: report.files.map((f) => f.path), ms: performance.now() - t0 };
  return packed;
}

afterAll(async () => {
  // About 20,000 files: removed without blocking the event loop, given time on a busy machine.
  if (packed) await rm(packed.work, { recursive: true, force: true });
}, 300_000);

describe('npm pack: what the tarball holds', () => {
  let files: string[];
  beforeAll(() => {
    files = packOnce().files;
  }, 120_000);

  it('has the command, the compiled code with its types, the contracts and the data it reads', () => {
    for (const file of [
      'package.json',
      'README.md',
      'bin/shipmock.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/main.js',
      'contract/openapi.yaml',
      'contract/admin.yaml',
      'contract/DECISIONS.md',
      'fixtures/credentials.json',
      'fixtures/catalogue.json',
      'scenarios/scenario.schema.json',
      'scenarios/rate-limit-burst.yaml',
      'pacts/ShippingClient-ShippingPlatformAPI.json',
    ]) {
      expect(files, file).toContain(file);
    }
  });

  it('has the compiled validators, so an installed mock starts without compiling the contract', () => {
    const cache = files.filter((f) => f.startsWith('dist/validator-cache/'));
    expect(cache.filter((f) => f.endsWith('.cjs')).length).toBeGreaterThanOrEqual(3);
    // Exactly the entries of this build: those of earlier contract versions are not shipped.
    expect(cache.sort()).toEqual(readdirSync(join(root, 'dist/validator-cache')).map((name) => `dist/validator-cache/${name}`).sort());
  });

  it('has the inspector and the API reference, each text file with its brotli and gzip forms', () => {
    const ui = files.filter((f) => f.startsWith('dist/ui/'));
    expect(ui).toContain('dist/ui/index.html');
    expect(ui.some((f) => /^dist\/ui\/assets\/index-[\w-]+\.js$/.test(f))).toBe(true);
    expect(ui.some((f) => /^dist\/ui\/assets\/index-[\w-]+\.css$/.test(f))).toBe(true);
    for (const file of ['dist/docs/index.html', 'dist/docs/swagger-ui-bundle.js', 'dist/docs/swagger-ui.css', 'dist/docs/docs.js', 'dist/docs/favicon-32x32.png']) expect(files, file).toContain(file);
    for (const file of [...ui, ...files.filter((f) => f.startsWith('dist/docs/'))].filter((f) => /\.(js|css|html)$/.test(f))) {
      expect(files, `${file}.br`).toContain(`${file}.br`);
      expect(files, `${file}.gz`).toContain(`${file}.gz`);
    }
  });

  it('has no sources, tests, source maps, build state or repository files', () => {
    const unwanted = files.filter(
      (f) =>
        /^(src|test|ui|bench|scripts|docs|node_modules|\.ci|\.github|test-results)\//.test(f) ||
        /\.test\.[cm]?[jt]s$/.test(f) ||
        /\.map$/.test(f) ||
        /tsbuildinfo$/.test(f) ||
        /^(tsconfig.*|vitest\.config\.ts|package-lock\.json|\.npmrc|Dockerfile|compose\.yaml)$/.test(f),
    );
    expect(unwanted).toEqual([]);
    // Every file of the tarball is under one of the "files" entries (or one npm always adds).
    expect(files.filter((f) => !/^(bin|dist|contract|fixtures|scenarios|pacts)\//.test(f) && !/^(package\.json|README\.md|LICENSE)$/.test(f))).toEqual([]);
  });
});

interface Started {
  ms: number;
  output: string;
  url: string;
  stop: () => Promise<void>;
}

/** spawn → the first API answer (a carrier list with the seeded company's Basic credentials), as `npm run bench -- --cold` times it. */
function startAndTime(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Started> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    let done = false;
    const stop = () =>
      new Promise<void>((resolveStop) => {
        if (child.exitCode !== null) return resolveStop();
        child.once('exit', () => resolveStop());
        process.kill(-child.pid!, 'SIGTERM');
      });
    const fail = (error: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`no start within 60 s:\n${output}`)), 60_000);
    child.on('exit', (code) => fail(new Error(`exited ${code} before answering:\n${output}`)));
    const onData = async (chunk: Buffer) => {
      output += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (!url || done || !/company token/.test(output)) return;
      done = true;
      const credentials = `${/client id\s+(\S+)/.exec(output)![1]}:${/client secret\s+(\S+)/.exec(output)![1]}`;
      const answer = await fetch(`${url}/v1/carriers`, { headers: { Authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } });
      const ms = performance.now() - t0;
      clearTimeout(timer);
      if (answer.status !== 200) return reject(new Error(`GET /v1/carriers answered ${answer.status}`));
      resolve({ ms, output, url, stop });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk) => (output += chunk));
  });
}

function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    })
      .on('error', reject)
      .end();
  });
}

describe('npx shipmock from the packed tarball in an empty folder', () => {
  let work: string;
  let app: string;
  let cacheDir: string;
  const timings: string[] = [];

  beforeAll(() => {
    const pack = packOnce();
    work = pack.work;
    app = join(work, 'app');
    cacheDir = join(work, 'validator-cache');
    mkdirSync(app);
    mkdirSync(cacheDir);
    timings.push(`npm pack: ${Math.round(pack.ms)} ms`);
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'))!;
    expect(tarball).toBe(`${pkg.name}-${pkg.version}.tgz`);
    expect(pack.filename).toBe(tarball);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'newcomer-app', version: '1.0.0', private: true }));
    const t0 = performance.now();
    run('npm', ['install', '--prefer-offline', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', join(work, tarball)], app);
    timings.push(`npm install of the tarball: ${Math.round(performance.now() - t0)} ms`);
  }, 300_000);

  afterAll(() => {
    console.log(timings.join('\n'));
  });

  it('npx shipmock --version prints the packed version', () => {
    expect(run('npx', ['shipmock', '--version'], app).trim()).toBe(`shipmock ${pkg.version}`);
  });

  it('npx shipmock --port 0 starts from the installed package, with the inspector and /docs, compressed', { timeout: 120_000 }, async () => {
    const env = cleanEnv({ SHIPMOCK_CACHE_DIR: cacheDir });
    const started = await startAndTime('npx', ['shipmock', '--port', '0'], app, env);
    try {
      timings.push(`npx shipmock, spawn to first answer: ${Math.round(started.ms)} ms`);
      expect(started.output).toContain('client secret  shipmock-demo-secret');
      // It runs the installed copy, not this repository.
      expect(existsSync(join(app, 'node_modules/shipmock/dist/cli/main.js'))).toBe(true);
      const health = await fetch(`${started.url}/__admin/health`);
      expect(health.status).toBe(200);
      for (const page of ['/__admin/ui/', '/docs/swagger-ui-bundle.js']) {
        const answer = await rawGet(`${started.url}${page}`, { 'Accept-Encoding': 'br, gzip' });
        expect(answer.status, page).toBe(200);
        expect(answer.headers['content-encoding'], page).toBe('br');
      }
    } finally {
      await started.stop();
    }
    // The shipped validators were used: nothing was compiled (a compile writes its entries to SHIPMOCK_CACHE_DIR first).
    expect(readdirSync(cacheDir).filter((name) => name.endsWith('.cjs'))).toEqual([]);
  });

  it('later starts of the installed bin are timed, and compile nothing', { timeout: 120_000 }, async () => {
    const bin = join(app, 'node_modules/.bin/shipmock');
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = await startAndTime(process.execPath, [bin, 'serve', '--port', '0', '--log-level', 'warn'], app, cleanEnv({ SHIPMOCK_CACHE_DIR: cacheDir }));
      times.push(started.ms);
      await started.stop();
    }
    const median = [...times].sort((a, b) => a - b)[1];
    timings.push(`node node_modules/.bin/shipmock serve, spawn to first answer: median ${Math.round(median)} ms (${times.map(Math.round).join(', ')})`);
    expect(readdirSync(cacheDir).filter((name) => name.endsWith('.cjs'))).toEqual([]);
  });
});
