#!/usr/bin/env node
// A TCP proxy that holds every chunk `delayMs` each way, like a database in another zone: kept
// because issue 27's scale-out numbers (bench/scale-out.mjs) are measured through it, and so is
// the next design's (test: test/durability/delay-proxy.test.ts).
// `node bench/delay-proxy.mjs --target 127.0.0.1:5432 [--delay 1] [--port 0]`: prints its port and
// the URL of its counters (chunks held, ms held in all: GET it before and after a run), runs until Ctrl-C.
import { createServer as createHttpServer } from 'node:http';
import { createConnection, createServer } from 'node:net';

/**
 * Bytes from `from` reach `to` `delayMs` later, in order (timers of one duration fire in the
 * order they were set), and so does the end of the stream. `held` counts each chunk and how long
 * it was really held: a timer fires late when the proxy waits for the CPU, so the delay a run
 * got is measured, not assumed.
 */
function delayed(from, to, delayMs, held) {
  from.on('data', (chunk) => {
    const at = performance.now();
    setTimeout(() => {
      held.chunks++;
      held.ms += performance.now() - at;
      if (to.writable) to.write(chunk);
    }, delayMs);
  });
  from.on('end', () => setTimeout(() => to.end(), delayMs));
}

/**
 * @param {{ target: { host: string, port: number }, delayMs?: number, port?: number }} options
 * @returns {Promise<{ port: number, connections: () => number, held: () => { chunks: number, ms: number }, close: () => Promise<void> }>}
 * @example
 * const proxy = await startDelayProxy({ target: { host: '127.0.0.1', port: 5432 }, delayMs: 1 });
 * // postgres://postgres@127.0.0.1:${proxy.port}/shipmock — then: await proxy.close();
 */
export function startDelayProxy({ target, delayMs = 1, port = 0 }) {
  const sockets = new Set();
  const held = { chunks: 0, ms: 0 };
  let accepted = 0;
  const server = createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    accepted++;
    const upstream = createConnection({ ...target, noDelay: true, allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // Either side failing ends both, as a dropped connection would.
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    delayed(client, upstream, delayMs, held);
    delayed(upstream, client, delayMs, held);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        connections: () => accepted,
        held: () => ({ ...held }),
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}

/** The proxy's counters as JSON on a port of their own (bench/load-groups.mjs reads them like a process's). */
function serveCounters(proxy) {
  const server = createHttpServer((_req, res) => {
    const { chunks, ms } = proxy.held();
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ proxyChunks: chunks, proxyHeldMs: ms }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}/`)));
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
  const [host, targetPort] = option('--target', '127.0.0.1:5432').split(':');
  const proxy = await startDelayProxy({ target: { host, port: Number(targetPort) }, delayMs: Number(option('--delay', '1')), port: Number(option('--port', '0')) });
  const counters = await serveCounters(proxy);
  console.log(`delay proxy 127.0.0.1:${proxy.port} → ${host}:${targetPort}, ${option('--delay', '1')} ms each way; counters ${counters}`);
}
