import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { normalizeAddress } from '../rate-limit/callers.js';

/**
 * How long a client may take and how many may be connected: a slowloris (headers trickled
 * byte by byte, a body that never ends, thousands of idle sockets) must not hold the mock's
 * sockets and memory forever. These are wall-clock limits of the socket, not the virtual clock:
 * time travel must not drop a client's connection.
 */
export interface ConnectionLimits {
  /** Time to receive the request headers; then 408 and the socket closes. Default 10 s. */
  headersTimeoutMs?: number;
  /** Time to receive the whole request (headers and body); then 408. Default 30 s. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open between requests. Default 5 s. */
  keepAliveTimeoutMs?: number;
  /** Open connections at most; further ones are closed on accept. Default 1024. */
  maxConnections?: number;
  /**
   * Open connections from one client address at most, so one client cannot take every slot of
   * `maxConnections`; further ones from that address are closed on accept. Default half of
   * `maxConnections` (512), at least 1. Loopback callers all share 127.0.0.1 (or ::1): half the
   * cap is far above what a browser (6 per origin), the inspector, a test suite or a load test
   * opens. IPv4-mapped IPv6 addresses count as their IPv4 address.
   */
  maxConnectionsPerAddress?: number;
  /**
   * How often Node checks the headers and request timeouts (its default, 30 s, would let a
   * slow client overstay a 10 s limit by up to 30 s). Default 1 s.
   */
  checkIntervalMs?: number;
}

export type ResolvedConnectionLimits = Required<ConnectionLimits>;

/** The defaults; `maxConnectionsPerAddress` is derived from `maxConnections` (half of it). */
export const DEFAULT_CONNECTION_LIMITS: Omit<ResolvedConnectionLimits, 'maxConnectionsPerAddress'> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
  checkIntervalMs: 1_000,
};

/**
 * Fills in the defaults and checks the values (Node refuses a headers timeout longer than the
 * request timeout, with a less helpful message).
 *
 * @example resolveConnectionLimits({ headersTimeoutMs: 2_000 }).requestTimeoutMs // 30000
 */
export function resolveConnectionLimits(limits: ConnectionLimits = {}): ResolvedConnectionLimits {
  const resolved: ResolvedConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, maxConnectionsPerAddress: 0 };
  for (const [name, value] of Object.entries(limits) as [keyof ConnectionLimits, number | undefined][]) {
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, got ${value}`);
    resolved[name] = value;
  }
  if (resolved.headersTimeoutMs > resolved.requestTimeoutMs) {
    throw new Error(`headersTimeoutMs (${resolved.headersTimeoutMs}) must not exceed requestTimeoutMs (${resolved.requestTimeoutMs})`);
  }
  if (limits.maxConnectionsPerAddress === undefined) resolved.maxConnectionsPerAddress = Math.max(1, Math.floor(resolved.maxConnections / 2));
  if (resolved.maxConnectionsPerAddress > resolved.maxConnections) {
    throw new Error(`maxConnectionsPerAddress (${resolved.maxConnectionsPerAddress}) must not exceed maxConnections (${resolved.maxConnections})`);
  }
  return resolved;
}

/**
 * The options node:http and node:https take at createServer; the check interval can only be
 * set there.
 */
export function serverOptionsOf(limits: ResolvedConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
  };
}

/** Told once when an address reaches its cap (again only after it dropped below). */
export type OnAddressFull = (address: string, limit: number) => void;

/**
 * What can only be set on the server object: the global cap (Node closes sockets beyond it
 * before they are seen) and the per-address cap, counted here on the raw TCP socket (before TLS,
 * so an HTTPS client that never finishes its handshake counts too).
 */
export function applyConnectionLimits(server: Server, limits: ResolvedConnectionLimits, onAddressFull?: OnAddressFull): void {
  server.maxConnections = limits.maxConnections;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  const open = new Map<string, number>();
  const full = new Set<string>();
  // Prepended: the socket is closed before the HTTP parser ever reads from it.
  server.prependListener('connection', (socket: Socket) => {
    const address = normalizeAddress(socket.remoteAddress);
    const count = open.get(address) ?? 0;
    if (count >= limits.maxConnectionsPerAddress) {
      if (!full.has(address)) {
        full.add(address);
        onAddressFull?.(address, limits.maxConnectionsPerAddress);
      }
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
      full.delete(address);
    });
  });
}
