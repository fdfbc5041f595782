import { randomBytes } from 'node:crypto';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startDelayProxy } from '../../bench/delay-proxy.mjs';
import { proxyPriority, spawnDelayProxy } from '../../bench/scale-out.mjs';

/**
 * The bench's delay proxy (bench/delay-proxy.mjs): issue 27's scale-out numbers are measured
 * through it, so it must pass every byte unchanged and in order, end streams, and add its delay
 * each way. Timing is asserted only as a lower bound (a loaded machine only makes it slower).
 */
interface Proxy {
  port: number;
  connections(): number;
  held(): { chunks: number; ms: number };
  close(): Promise<void>;
}
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A server that echoes what it reads and ends when its client ends. */
async function echoServer(): Promise<number> {
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return (server.address() as { port: number }).port;
}

async function proxyTo(port: number, delayMs: number): Promise<Proxy> {
  const proxy: Proxy = await startDelayProxy({ target: { host: '127.0.0.1', port }, delayMs });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** Sends `payload` through the proxy, ends, and collects everything echoed until the stream ends. */
function roundTrip(port: number, payload: Buffer): Promise<{ echoed: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    const socket: Socket = createConnection({ host: '127.0.0.1', port }, () => socket.end(payload));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve({ echoed: Buffer.concat(chunks), ms: performance.now() - started }));
    socket.on('error', reject);
  });
}

describe('bench/delay-proxy.mjs', () => {
  it('passes 4 MiB both ways unchanged and in order, and ends the stream', async () => {
    const proxy = await proxyTo(await echoServer(), 1);
    const payload = randomBytes(4 * 1024 * 1024);
    const { echoed } = await roundTrip(proxy.port, payload);
    expect(echoed.equals(payload)).toBe(true);
    expect(proxy.connections()).toBe(1);
  });

  it('holds each chunk its delay each way: a round trip takes at least twice the delay', async () => {
    const proxy = await proxyTo(await echoServer(), 60);
    const { echoed, ms } = await roundTrip(proxy.port, Buffer.from('ping'));
    expect(echoed.toString()).toBe('ping');
    // Timers may fire up to a millisecond early by the performance clock.
    expect(ms).toBeGreaterThanOrEqual(2 * 60 - 2);
  });

  it('counts the chunks it held and how long it really held them', async () => {
    const proxy = await proxyTo(await echoServer(), 60);
    expect(proxy.held()).toEqual({ chunks: 0, ms: 0 });
    await roundTrip(proxy.port, Buffer.from('ping'));
    const { chunks, ms } = proxy.held();
    // 'ping' one way and its echo back (a stream's end is not a chunk).
    expect(chunks).toBe(2);
    expect(ms / chunks).toBeGreaterThanOrEqual(60 - 1);
  });

  it('started by the bench: at the priority it says, its counters answer over HTTP', async () => {
    const priority = proxyPriority();
    const proxy = await spawnDelayProxy(await echoServer(), 1, priority);
    cleanups.push(async () => proxy.stop());
    const counters = async () => (await fetch(proxy.counters)).json();
    expect(await counters()).toEqual({ proxyChunks: 0, proxyHeldMs: 0 });
    await roundTrip(proxy.port, Buffer.from('ping'));
    const after = await counters();
    expect(after.proxyChunks).toBe(2);
    expect(after.proxyHeldMs).toBeGreaterThan(0);
    // Where chrt -f is allowed (root, as in CI) the proxy really runs as SCHED_FIFO; elsewhere the label says it does not.
    // /proc/<pid>/stat after the command's name: field 41, the scheduling policy (1: SCHED_FIFO), is the 39th.
    const policy = Number(readFileSync(`/proc/${proxy.pid}/stat`, 'utf8').split(') ')[1].split(' ')[38]);
    if (priority.prefix.length) expect(policy).toBe(1);
    else expect([policy, priority.label.startsWith('normal')]).toEqual([0, true]);
  });

  it('closes the client when the target cannot be reached', async () => {
    const closedPort = await echoServer();
    const proxy = await proxyTo(closedPort, 1);
    // The echo server's cleanup (pushed first) closes it: the proxy's connection to it is refused.
    await cleanups.shift()!();
    const closed = await new Promise<{ received: number }>((resolve) => {
      let received = 0;
      const socket = createConnection({ host: '127.0.0.1', port: proxy.port }, () => socket.write('ping'));
      socket.on('data', (chunk: Buffer) => (received += chunk.length));
      // An end or a reset: either way the client is not left hanging.
      socket.on('error', () => {});
      socket.on('close', () => resolve({ received }));
    });
    expect(closed.received).toBe(0);
  });
});
