import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../../src/app/create-app.js';
import { createRuntime, type MockRuntime } from '../../../src/runtime/runtime.js';
import { exportState } from '../../../src/admin/state.js';
import { createLogger } from '../../../src/logging/logger.js';
import type { FuzzTarget } from './fuzzer.js';

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value) ?? 'undefined').digest('hex').slice(0, 16);

/** Per-part hashes of an exported state; the time of export is left out (it is not state). */
export function fingerprintOf(state: Record<string, unknown>): Record<string, string> {
  const { exportedAt: _at, store, ...rest } = state as { exportedAt?: unknown; store?: Record<string, unknown> };
  const parts: Record<string, string> = {};
  for (const [k, v] of Object.entries(rest)) parts[k] = hash(v);
  // The store per top-level key, so a report says which collection changed.
  for (const [k, v] of Object.entries(store ?? {})) {
    if (k === 'scopes' && v && typeof v === 'object') {
      // Per scope (account:<id>, company:<id>, global), so a report names the scope that changed
      // or appeared; `scopes` lists which exist.
      parts['store.scopes'] = hash(Object.keys(v).sort());
      for (const [scope, data] of Object.entries(v)) parts[`store.scopes.${scope}`] = hash(data);
    } else parts[`store.${k}`] = hash(v);
  }
  return parts;
}

function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

/** A webhook receiver that acknowledges everything (the fuzzer's Event Channels point here). */
export async function startSink(): Promise<{ url: string; received: () => number; close(): Promise<void> }> {
  let count = 0;
  const { server, url } = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 1000;
  return { url: `${url}/hook`, received: () => count, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

/** The default company's and first affiliate's credentials, as a FuzzTarget names them. */
function credentialsOf(
  company: { companyId: string; clientId: string; clientSecret: string },
  affiliate: { affiliateId: string; clientId: string; clientSecret: string },
): Pick<FuzzTarget, 'companyId' | 'clientId' | 'clientSecret' | 'affiliate'> {
  return {
    companyId: company.companyId,
    clientId: company.clientId,
    clientSecret: company.clientSecret,
    affiliate: { affiliateId: affiliate.affiliateId, clientId: affiliate.clientId, clientSecret: affiliate.clientSecret },
  };
}

export interface StartedTarget {
  target: FuzzTarget;
  runtime?: MockRuntime;
  pid?: number;
  close(): Promise<void>;
}

/** The real app of this checkout in this process, on a socket: manual clock, response validation on. */
export async function startInProcessTarget(seed: number): Promise<StartedTarget> {
  const sink = await startSink();
  const runtime = createRuntime(
    { seed, clock: { mode: 'manual' }, responseValidation: 'error', tokenSecret: 'fuzz-secret', rateLimit: { limit: 1_000_000_000, windowMs: 60_000 } },
    createLogger({ level: 'silent', format: 'json' }),
  );
  const { app } = createApp(runtime);
  const { server, url } = await listen(app);
  const company = runtime.credentials.defaultCompany;
  const affiliate = runtime.credentials.affiliates[0];
  return {
    runtime,
    target: {
      baseUrl: url,
      ...credentialsOf(company, affiliate),
      fingerprint: async () => fingerprintOf(exportState(runtime) as unknown as Record<string, unknown>),
      alive: () => true,
      webhookUrl: sink.url,
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      runtime.dispose();
      await sink.close();
    },
  };
}

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A mock in a child process, started from this checkout's sources (tsx) or the built dist:
 * `shipmock serve --port 0`, its URL read from the start banner.
 */
export async function spawnMock(args: string[], options: { fromDist?: boolean } = {}): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  // src/cli/main.ts only exports main(); bin/shipmock.js calls it for dist, this does for the sources.
  const fromSource = `import('./src/cli/main.ts').then((m) => m.main(process.argv.slice(1))).catch((e) => { process.stderr.write(String(e?.stack ?? e)); process.exit(2); })`;
  const entry = options.fromDist ? ['bin/shipmock.js'] : ['--import', 'tsx', '-e', fromSource];
  const child = spawn(process.execPath, [...entry, 'serve', '--port', '0', '--log-level', 'error', ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`shipmock did not start within 60 s:\n${out}`)), 60_000);
    const poll = setInterval(() => {
      const m = /shipmock listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(m[1]);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`shipmock exited with ${code} before listening:\n${out}`));
    });
  });
  return { child, url, output: () => out };
}

async function adminJson(url: string, method: string, path: string, body?: unknown): Promise<any> {
  // JSON content type on every control-plane call (the control plane refuses simple requests).
  const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** A real server (child process) as a fuzz target; its state fingerprint comes from GET /__admin/state. */
export async function startProcessTarget(seed: number, options: { fromDist?: boolean } = {}): Promise<StartedTarget> {
  const sink = await startSink();
  const { child, url } = await spawnMock(['--seed', String(seed), '--clock', 'manual', '--token-secret', 'fuzz-secret', '--rate-limit', '1000000000/60s'], options);
  const credentials = await adminJson(url, 'GET', '/__admin/credentials');
  const company = credentials.companies[0];
  const affiliate = credentials.affiliates[0];
  let exited = false;
  child.once('exit', () => (exited = true));
  return {
    pid: child.pid,
    target: {
      baseUrl: url,
      ...credentialsOf(company, affiliate),
      fingerprint: async () => fingerprintOf(await adminJson(url, 'GET', '/__admin/state')),
      alive: () => !exited,
      webhookUrl: sink.url,
    },
    close: async () => {
      if (!exited) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      await sink.close();
    },
  };
}

export { adminJson };
