/**
 * The ports the mock itself is reached on, so a webhook never targets the mock (contract/
 * DECISIONS.md, "A mock never sends a request to itself"). `startMock` notes its listening port;
 * a mock mounted as middleware in someone's app has no port of its own: it notes the local port
 * of every request it serves (the host app's), which always includes the one the request that
 * creates a channel came in on. Any address of this machine on one of these ports is the mock:
 * loopback, the unspecified address and every interface address, whatever address the server is
 * bound to (stricter than the bind address needs, never less).
 *
 * @example
 * const endpoints = createMockEndpoints();
 * endpoints.note(4010);
 * endpoints.ports.has(4010) // true
 */
export interface MockEndpoints {
  readonly ports: ReadonlySet<number>;
  /** Adds a port the mock is reached on (a server's, or a served request's local port). */
  note(port: number | undefined): void;
}

export function createMockEndpoints(): MockEndpoints {
  const ports = new Set<number>();
  return {
    ports,
    note(port) {
      if (port !== undefined && Number.isInteger(port) && port > 0) ports.add(port);
    },
  };
}
