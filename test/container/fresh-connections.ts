/**
 * Setup of the container tests: every request opens a connection of its own (`Connection:
 * close`). A mock in a container closes an idle connection after 5 s (its keep-alive timeout);
 * fetch retires one after 4 s, by a timer — which cannot run while a test waits in a synchronous
 * podman call (execFileSync: `podman exec` twice took 5.7 s). The next request then went out on
 * a connection the mock had closed behind podman's port forwarder and failed with "other side
 * closed" (clean-clone CI, 2026-11-27, image.test.ts). A connection per request leaves none idle.
 */
const fetchWithItsOwnConnection = globalThis.fetch;

globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.has('connection')) headers.set('connection', 'close');
  return fetchWithItsOwnConnection(input, { ...init, headers });
};
