// What every bench needs to talk to the servers it starts: a free port on 127.0.0.1, a fetch that
// survives the server closing an idle keep-alive socket, and a wait for the first answer.
import { createServer } from 'node:net';

/** A port nothing listens on now (the server taking it is started right after). */
export const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/**
 * fetch, once more when the socket was closed under it: the server ends idle keep-alive
 * connections after 5 s, and a 10 s load run leaves the bench's own pooled one idle that long.
 */
export async function fetchAgain(url, init) {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (error?.cause?.code !== 'UND_ERR_SOCKET') throw error;
    return fetch(url, init);
  }
}

/** Resolves with the ms until `url` first answers (any status), or rejects after `timeoutMs`. */
export async function waitFor(url, init, timeoutMs = 30_000) {
  const started = performance.now();
  for (;;) {
    try {
      const res = await fetch(url, init);
      await res.arrayBuffer();
      return performance.now() - started;
    } catch {
      if (performance.now() - started > timeoutMs) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}
