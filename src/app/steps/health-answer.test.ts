import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../store/store.js';
import { healthAnswer } from './health-answer.js';

/** The step on a real socket; what it passes on is answered 299 "control plane" (the admin app's place). */
async function serve(store: Partial<Store>): Promise<{ server: Server; port: number }> {
  const step = healthAnswer({ store: store as Store });
  const server = createServer((req, res) => step(req, res, () => void res.writeHead(299).end('control plane')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function send(port: number, options: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path ?? '/__admin/health', headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('healthAnswer step', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('answers a plain probe 200 {"status":"ok"} as the control plane does, when the store has nothing to say', async () => {
    let probes = 0;
    const running = await serve({ probe: async () => void probes++ });
    server = running.server;
    const answer = await send(running.port);
    expect(answer).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    expect(answer.headers).toMatchObject({ vary: 'Origin', 'content-type': 'application/json; charset=utf-8', 'content-length': '15' });
    expect(probes).toBe(1);
    // A store without a probe (memory) is always usable.
    const memory = await serve({});
    await expect(send(memory.port)).resolves.toMatchObject({ status: 200, body: '{"status":"ok"}' });
    await new Promise<void>((resolve) => memory.server.close(() => resolve()));
  });

  it('leaves a store that says why it cannot be used to the control plane (503 with the reason)', async () => {
    const running = await serve({ probe: async () => 'the disk is full' });
    server = running.server;
    await expect(send(running.port)).resolves.toMatchObject({ status: 299, body: 'control plane' });
  });

  it.each([
    ['a query', { path: '/__admin/health?x=1' }],
    ['another method', { method: 'POST' }],
    ['HEAD', { method: 'HEAD' }],
    ['a body', { headers: { 'Content-Type': 'text/plain', 'Content-Length': '1' }, body: 'x' }],
    ['a chunked body', { headers: { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' }, body: 'x' }],
    ['a page’s Origin', { headers: { Origin: 'http://evil.example' } }],
    ['Sec-Fetch-Site cross-site', { headers: { 'Sec-Fetch-Site': 'cross-site' } }],
    ['another control-plane path', { path: '/__admin/healthz' }],
  ])('passes %s on to the control plane, which checks it', async (_what, options) => {
    const running = await serve({ probe: async () => undefined });
    server = running.server;
    expect((await send(running.port, options)).status).toBe(299);
  });
});
