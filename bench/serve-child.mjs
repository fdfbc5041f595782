// What the RSS benches (cache-rss.mjs: SQLite; shared-cache-rss.mjs: PostgreSQL) share: a
// `shipmock serve` child on a free port, the calls they make to it, and their fixtures.
import { appendFileSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';

export const berlin = { name: 'Erika Mustermann', street: 'Hauptstraße 5', city: 'Berlin', postalCode: '10115', countryCode: 'DE' };
export const munich = { name: 'Max Muster', street: 'Marienplatz 1', city: 'München', postalCode: '80331', countryCode: 'DE' };
export const ACCOUNT_BODY = {
  company: { name: 'Muster GmbH', vatNumber: 'DE123456789', countryCode: 'DE', city: 'Berlin', postalCode: '10115', address: 'Hauptstrasse 5' },
  contact: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49301234567' },
};

/** The processes `pid` started (Linux: /proc/PID/task/PID/children). */
const childPids = (pid) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

/**
 * `shipmock serve` of the checkout at `root` on a free port, manual clock, no rate limit;
 * resolves once its banner names the URL and the credentials. `traceGcFile`: run it with
 * --trace-gc, its output appended there. The child has `fullGc(pid?)`: a full garbage collection
 * (bench/gc-on-signal.mjs) of the child or of one of its `--workers`, settled with that process's
 * main-thread heap then ({ pid, heapUsed, heapTotal, external } bytes). `workerPids()`: the pids
 * of its `--workers` (none without).
 */
export function serve(root, args, { traceGcFile } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const gcHook = ['--expose-gc', '--import', new URL('./gc-on-signal.mjs', import.meta.url).href];
    const child = spawn(process.execPath, [...gcHook, ...(traceGcFile ? ['--trace-gc'] : []), `${root}bin/shipmock.js`, 'serve', '--port', '0', '--log-level', 'warn', '--rate-limit', 'off', '--clock', 'manual', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stderr.on('data', (chunk) => {
      out += chunk;
      for (const [, line] of String(chunk).matchAll(/bench: full gc done (.*)/g)) {
        const report = JSON.parse(line);
        gcDone.get(report.pid)?.(report);
        gcDone.delete(report.pid);
      }
    });
    const gcDone = new Map();
    const fullGc = (pid = child.pid) =>
      new Promise((done) => {
        gcDone.set(pid, done);
        process.kill(pid, 'SIGUSR2');
      });
    child.stdout.on('data', (chunk) => {
      if (traceGcFile) appendFileSync(traceGcFile, chunk);
      out += chunk;
      const match = /listening on (\S+)[\s\S]*company id\s+(\S+)[\s\S]*client id\s+(\S+)[\s\S]*client secret\s+(\S+)/.exec(out);
      if (!match) return;
      const basic = `Basic ${Buffer.from(`${match[3]}:${match[4]}`).toString('base64')}`;
      const exited = new Promise((done) => child.once('exit', done));
      resolve({ child, url: match[1], companyId: match[2], basic, startMs: performance.now() - started, fullGc, workerPids: () => childPids(child.pid), stop: () => (child.kill('SIGTERM'), exited) });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before listening:\n${out}`)));
  });
}

/** One call to the mock; its JSON answer, or an error naming the request and status. */
export async function call(mock, method, path, { auth, body } = {}) {
  const headers = {};
  if (auth) headers.Authorization = auth;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (path.startsWith('/__admin')) headers['X-Shipmock-Admin'] = '1';
  const res = await fetch(`${mock.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** task(0 … count-1), `concurrency` at a time. */
export async function inParallel(count, concurrency, task) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await task(next++);
  }));
}

export const accountAuth = async (mock, id) => `Bearer ${(await call(mock, 'POST', `/v1/accounts/${id}/tokens`, { auth: mock.basic, body: { grantType: 'client_credentials' } })).accessToken}`;
