import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../src/server/start-mock.js';
import { DEFAULT_CONNECTION_LIMITS, resolveConnectionLimits, type ConnectionLimits } from '../../src/server/connection-limits.js';
import { startLiveMock } from '../support/live-mock.js';

/**
 * Slow clients cannot hold the mock's sockets: headers trickled byte by byte, a body that never
 * ends and idle keep-alive connections are closed after their (here short, test-set) timeouts,
 * and connections beyond the cap are closed on accept while the open ones keep working. These
 * are socket limits on the wall clock, so these tests wait for real — a second or less each.
 */
const mocks: RunningMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

async function mockWith(connections: ConnectionLimits | undefined, extra = {}) {
  const mock = await startLiveMock({ connections, ...extra });
  mocks.push(mock);
  return mock;
}

interface Watched {
  socket: Socket;
  /** Everything the server sent. */
  received: () => string;
  /** Resolves with the ms from connect to close. */
  closed: Promise<number>;
  connected: Promise<void>;
}

function watch(socket: Socket, connectEvent = 'connect'): Watched {
  const started = Date.now();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => {});
  return {
    socket,
    received: () => text,
    closed: new Promise((resolve) => socket.on('close', () => resolve(Date.now() - started))),
    connected: new Promise((resolve) => socket.once(connectEvent, () => resolve())),
  };
}

const open = (mock: RunningMock) => watch(connectTcp({ host: '127.0.0.1', port: mock.port }));
const health = (host: string) => `GET /__admin/health HTTP/1.1\r\nHost: ${host}\r\n\r\n`;

describe('slow clients', () => {
  it('closes a slowloris that trickles its headers once the headers timeout passes (408)', async () => {
    const mock = await mockWith({ headersTimeoutMs: 300, requestTimeoutMs: 2_000, checkIntervalMs: 50 });
    const client = open(mock);
    await client.connected;
    client.socket.write('GET /v1/addresses HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // A new header byte every 50 ms: each keeps the socket busy, none completes the headers.
    const trickle = setInterval(() => client.socket.writable && client.socket.write('X'), 50);
    const elapsed = await client.closed;
    clearInterval(trickle);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1_500);
  });

  it('closes a request whose body never finishes once the request timeout passes', async () => {
    const mock = await mockWith({ headersTimeoutMs: 200, requestTimeoutMs: 500, checkIntervalMs: 50 });
    const client = open(mock);
    await client.connected;
    const token = mock.tokens.sign({ lvl: 'COMPANY', cid: mock.credentials.companyId, sub: mock.credentials.clientId }, 3_600_000).token;
    client.socket.write(`POST /v1/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"alias":`);
    const elapsed = await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(1_800);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const mock = await mockWith({ keepAliveTimeoutMs: 300 });
    const client = open(mock);
    await client.connected;
    client.socket.write('GET /v1/nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await waitFor(async () => client.received().includes('\r\n\r\n'));
    const answered = Date.now();
    await client.closed;
    const idle = Date.now() - answered;
    expect(client.received()).toMatch(/^HTTP\/1\.1 404 /);
    // Node keeps an idle socket about 1 s past keepAliveTimeout, so a client that trusts the
    // advertised Keep-Alive timeout never races the close.
    expect(idle).toBeGreaterThanOrEqual(250);
    expect(idle).toBeLessThan(2_500);
  });

  it('closes connections beyond the cap on accept; the open ones still work, and a freed slot is reused', async () => {
    // One client takes the whole global cap here, so its per-address share is the whole cap
    // (by default it would be half: test/reliability/connections-per-address.test.ts).
    const mock = await mockWith({ maxConnections: 3, maxConnectionsPerAddress: 3 });
    const held = [open(mock), open(mock), open(mock)];
    await Promise.all(held.map((c) => c.connected));
    await waitFor(async () => (await connectionCount(mock)) === 3);

    const extra = open(mock);
    const refusedAfter = await extra.closed;
    expect(extra.received()).toBe('');
    expect(refusedAfter).toBeLessThan(1_000);

    held[0].socket.write(health('127.0.0.1'));
    await waitFor(async () => held[0].received().includes('\r\n\r\n'));
    expect(held[0].received()).toMatch(/^HTTP\/1\.1 200 /);

    held[1].socket.destroy();
    await held[1].closed;
    await waitFor(async () => (await connectionCount(mock)) === 2);
    const next = await fetch(`${mock.url}/__admin/health`);
    expect(next.status).toBe(200);
    for (const c of held) c.socket.destroy();
  });

  it('applies the same limits to the HTTPS server', async () => {
    const mock = await mockWith({ headersTimeoutMs: 300, requestTimeoutMs: 2_000, keepAliveTimeoutMs: 400, maxConnections: 7, checkIntervalMs: 50 }, { tls: true });
    expect(mock.url).toMatch(/^https:/);
    expect([mock.server.headersTimeout, mock.server.requestTimeout, mock.server.keepAliveTimeout, mock.server.maxConnections]).toEqual([300, 2_000, 400, 7]);
    const client = watch(connectTls({ host: '127.0.0.1', port: mock.port, rejectUnauthorized: false }), 'secureConnect');
    await client.connected;
    client.socket.write('GET /v1/addresses HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const elapsed = await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(elapsed).toBeLessThan(1_500);
  });

  it('has defaults of 10 s headers, 30 s request, 5 s keep-alive, 1024 connections, checked every second', async () => {
    expect(DEFAULT_CONNECTION_LIMITS).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 1024, checkIntervalMs: 1_000 });
    const mock = await mockWith(undefined);
    expect([mock.server.headersTimeout, mock.server.requestTimeout, mock.server.keepAliveTimeout, mock.server.maxConnections]).toEqual([10_000, 30_000, 5_000, 1024]);
  });

  it.each([
    [{ maxConnections: 0 }, /maxConnections must be a positive whole number/],
    [{ headersTimeoutMs: 1.5 }, /headersTimeoutMs must be a positive whole number/],
    [{ headersTimeoutMs: 40_000 }, /headersTimeoutMs \(40000\) must not exceed requestTimeoutMs \(30000\)/],
  ])('refuses %j before anything starts', async (connections, message) => {
    expect(() => resolveConnectionLimits(connections)).toThrow(message);
    await expect(startLiveMock({ connections })).rejects.toThrow(message);
  });
});

function connectionCount(mock: RunningMock): Promise<number> {
  return new Promise((resolve, reject) => mock.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 2_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
