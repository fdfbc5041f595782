#!/usr/bin/env node
// Memory of a rate-limit flood: 50,000 requests with distinct garbage and forged tokens from one
// address, then one request from each of 12,000 loopback addresses (127.1.x.y). Reports RSS and
// heap after a forced GC and the limiter's key counts (README, Rate limits). Runs on the sources:
//   node --expose-gc --import tsx bench/rate-limit-flood.mjs
import { Agent, request } from 'node:http';

const { startMock, internalsOf } = await import('../src/server/start-mock.ts');
const { createLogger } = await import('../src/logging/logger.ts');
const mock = await startMock({ port: 0, clock: { mode: 'manual' }, logger: createLogger({ level: 'silent', format: 'json' }) });
// The limiter itself: its key counts are what this measures (not part of the public handles).
const limiter = internalsOf(mock).runtime.rateLimiter;
const b64url = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const forged = (i) => `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ lvl: 'ACCOUNT', aid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, sub: 'x', expMs: 9e12 })}.c2ln`;

function get(auth, options = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: mock.port, path: '/v1/addresses', headers: { authorization: auth }, ...options }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end();
  });
}

function memory(label) {
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  console.log(`${label.padEnd(34)} rss ${mb(rss).padStart(9)}  heap ${mb(heapUsed).padStart(9)}  principal keys ${limiter.principals.size}  address keys ${limiter.addresses.size}`);
}

memory('start');
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < 50_000) {
      const i = next++;
      await get(i % 2 ? `Bearer garbage-${i}` : `Bearer ${forged(i)}`, { agent });
    }
  }),
);
agent.destroy();
memory(`50,000 tokens (${((performance.now() - started) / 1000).toFixed(1)} s)`);

next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < 12_000) {
      const i = next++;
      await get('Bearer garbage', { agent: false, localAddress: `127.1.${i >> 8}.${i & 255}` });
    }
  }),
);
memory('12,000 addresses');
mock.clock.advance(60_000);
limiter.sweep();
memory('after the window (swept)');
await mock.close();
