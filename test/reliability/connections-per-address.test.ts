import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { resolveConnectionLimits } from '../../src/server/connection-limits.js';
import { startLiveMock } from '../support/live-mock.js';

/**
 * One client cannot hold the connection cap (issue 23): a client on 127.0.0.2 (Linux routes all
 * of 127/8 to lo, so binding the client socket there gives it its own address) holds sockets or
 * reconnects them as fast as they close, while a client on 127.0.0.1 is still answered. Real
 * sockets on the wall clock; the deadlines are generous, the counts exact.
 */
const mocks: RunningMock[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function mockWith(maxConnections: number, maxConnectionsPerAddress?: number): Promise<RunningMock> {
  const mock = await startLiveMock({ connections: { maxConnections, maxConnectionsPerAddress } });
  mocks.push(mock);
  return mock;
}

/** A socket from `localAddress` that sends one byte of a request and then waits. */
function holdOne(mock: RunningMock, localAddress: string): { socket: Socket; closed: Promise<void> } {
  const socket = connect({ host: '127.0.0.1', port: mock.port, localAddress });
  sockets.push(socket);
  socket.on('connect', () => socket.write('G'));
  socket.on('error', () => {});
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

/** `count` sockets from `localAddress`, each reopened the moment it closes, until stopped. */
function reconnectStorm(mock: RunningMock, localAddress: string, count: number): { stop: () => void; reconnects: () => number } {
  let stopped = false;
  let reconnects = 0;
  const open = () => {
    if (stopped) return;
    const { closed } = holdOne(mock, localAddress);
    void closed.then(() => {
      reconnects++;
      setImmediate(open);
    });
  };
  for (let i = 0; i < count; i++) open();
  return { stop: () => (stopped = true), reconnects: () => reconnects };
}

/** GET /__admin/health from 127.0.0.1 `times` times (one connection each); how many got 200. */
async function answersFromLoopback(mock: RunningMock, times: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < times; i++) {
    try {
      const res = await fetch(`${mock.url}/__admin/health`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(5_000) });
      if (res.status === 200) ok++;
      await res.arrayBuffer();
    } catch {
      // Closed on accept or timed out: not an answer.
    }
  }
  return ok;
}

function connectionCount(mock: RunningMock): Promise<number> {
  return new Promise((resolve, reject) => mock.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('connections per address', () => {
  it('derives the per-address cap from the global one (half, at least 1) and refuses one above it', () => {
    expect(resolveConnectionLimits().maxConnectionsPerAddress).toBe(512);
    expect(resolveConnectionLimits({ maxConnections: 20 }).maxConnectionsPerAddress).toBe(10);
    expect(resolveConnectionLimits({ maxConnections: 1 }).maxConnectionsPerAddress).toBe(1);
    expect(resolveConnectionLimits({ maxConnections: 20, maxConnectionsPerAddress: 20 }).maxConnectionsPerAddress).toBe(20);
    expect(() => resolveConnectionLimits({ maxConnections: 20, maxConnectionsPerAddress: 21 })).toThrow('maxConnectionsPerAddress (21) must not exceed maxConnections (20)');
    expect(() => resolveConnectionLimits({ maxConnectionsPerAddress: 0 })).toThrow('maxConnectionsPerAddress must be a positive whole number');
  });

  it('one address holding more sockets than the cap keeps only its share; another address is answered', async () => {
    const mock = await mockWith(20);
    // 30 sockets, one byte each: more than the whole cap.
    const held = Array.from({ length: 30 }, () => holdOne(mock, '127.0.0.2'));
    // 10 stay (the per-address cap), 20 are closed on accept.
    let closed = 0;
    for (const h of held) void h.closed.then(() => closed++);
    await waitFor(() => closed === 20);
    expect(await connectionCount(mock)).toBe(10);

    expect(await answersFromLoopback(mock, 10)).toBe(10);
    // The holder's sockets are still open: the cap closed only the surplus.
    expect(held.filter((h) => !h.socket.destroyed)).toHaveLength(10);
  });

  it('one address reconnecting 25 sockets as fast as they close does not starve another address (60/60)', async () => {
    const mock = await mockWith(20);
    const storm = reconnectStorm(mock, '127.0.0.2', 25);
    // The storm is under way: its surplus sockets are being closed and reopened.
    await waitFor(() => storm.reconnects() >= 50);
    await waitFor(async () => (await connectionCount(mock)) >= 10);
    const answered = await answersFromLoopback(mock, 60);
    const reconnects = storm.reconnects();
    storm.stop();
    expect(answered).toBe(60);
    expect(reconnects).toBeGreaterThan(50);
  });

  it('without a per-address share (cap = global cap) the same storm starves the other address: the share is what serves it', async () => {
    const mock = await mockWith(20, 20);
    const storm = reconnectStorm(mock, '127.0.0.2', 25);
    await waitFor(async () => (await connectionCount(mock)) === 20);
    const answered = await answersFromLoopback(mock, 5);
    storm.stop();
    expect(answered).toBeLessThan(5);
  });

  it('frees a slot when a socket of a full address closes', async () => {
    const mock = await mockWith(4);
    const held = [holdOne(mock, '127.0.0.2'), holdOne(mock, '127.0.0.2')];
    await waitFor(async () => (await connectionCount(mock)) === 2);
    const third = holdOne(mock, '127.0.0.2');
    await third.closed;
    held[0].socket.destroy();
    await held[0].closed;
    await waitFor(async () => (await connectionCount(mock)) === 1);
    const fourth = holdOne(mock, '127.0.0.2');
    await waitFor(async () => (await connectionCount(mock)) === 2);
    expect(fourth.socket.destroyed).toBe(false);
  });
});
