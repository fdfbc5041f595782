#!/usr/bin/env node
// A TCP proxy that holds every chunk `delayMs` each way, like a database in another zone: kept
// because issue 27's scale-out numbers (bench/scale-out.mjs) are measured through it, and so is
// the next design's (test: test/durability/delay-proxy.test.ts).
// `node bench/delay-proxy.mjs --target 127.0.0.1:5432 [--delay 1] [--port 0]`: prints its port, runs until Ctrl-C.
import { createConnection, createServer } from 'node:net';

/**
 * Bytes from `from` reach `to` `delayMs` later, in order (timers of one duration fire in the
 * order they were set), and so does the end of the stream.
 */
function delayed(from, to, delayMs) {
  from.on('data', (chunk) => {
    setTimeout(() => to.writable && to.write(chunk), delayMs);
  });
  from.on('end', () => setTimeout(() => to.end(), delayMs));
}

/**
 * @param {{ target: { host: string, port: number }, delayMs?: number, port?: number }} options
 * @returns {Promise<{ port: number, connections: () => number, close: () => Promise<void> }>}
 * @example
 * const proxy = await startDelayProxy({ target: { host: '127.0.0.1', port: 5432 }, delayMs: 1 });
 * // postgres://postgres@127.0.0.1:${proxy.port}/shipmock — then: await proxy.close();
 */
export function startDelayProxy({ target, delayMs = 1, port = 0 }) {
  const sockets = new Set();
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
    delayed(client, upstream, delayMs);
    delayed(upstream, client, delayMs);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({
        port: server.address().port,
        connections: () => accepted,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
  const [host, targetPort] = option('--target', '127.0.0.1:5432').split(':');
  const proxy = await startDelayProxy({ target: { host, port: Number(targetPort) }, delayMs: Number(option('--delay', '1')), port: Number(option('--port', '0')) });
  console.log(`delay proxy 127.0.0.1:${proxy.port} → ${host}:${targetPort}, ${option('--delay', '1')} ms each way`);
}
