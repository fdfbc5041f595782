import type { Server, ServerOptions } from 'node:http';

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
   * How often Node checks the headers and request timeouts (its default, 30 s, would let a
   * slow client overstay a 10 s limit by up to 30 s). Default 1 s.
   */
  checkIntervalMs?: number;
}

export type ResolvedConnectionLimits = Required<ConnectionLimits>;

export const DEFAULT_CONNECTION_LIMITS: ResolvedConnectionLimits = {
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
  const resolved: ResolvedConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS };
  for (const [name, value] of Object.entries(limits) as [keyof ConnectionLimits, number | undefined][]) {
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, got ${value}`);
    resolved[name] = value;
  }
  if (resolved.headersTimeoutMs > resolved.requestTimeoutMs) {
    throw new Error(`headersTimeoutMs (${resolved.headersTimeoutMs}) must not exceed requestTimeoutMs (${resolved.requestTimeoutMs})`);
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

/** What can only be set on the server object. */
export function applyConnectionLimits(server: Server, limits: ResolvedConnectionLimits): void {
  server.maxConnections = limits.maxConnections;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
}
