import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWire } from './wire.js';

/** A server that answers the first request of each connection, and resets the ones after it unread (an idle socket closed as it is reused). */
async function serverResetting(which: 'reused' | 'every'): Promise<{ server: Server; url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer((req, res) => {
    req.resume();
    res.end('ok');
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    let requests = 0;
    socket.prependListener('data', () => {
      if (which === 'every' || ++requests > 1) socket.resetAndDestroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

describe('the fuzzer wire', () => {
  it('sends a request once more when the reused keep-alive socket is reset before any answer', async () => {
    const target = await serverResetting('reused');
    servers.push(target.server);
    const wire = createWire(target.url, { maxSockets: 1 });
    try {
      expect((await wire.send({ method: 'GET', path: '/a', headers: {} })).text).toBe('ok');
      expect((await wire.send({ method: 'GET', path: '/b', headers: {} })).text).toBe('ok');
      expect(target.connections()).toBe(2);
    } finally {
      wire.close();
    }
  });

  it('reports a reset on a new connection: the server dropped the request', async () => {
    const target = await serverResetting('every');
    servers.push(target.server);
    const wire = createWire(target.url);
    try {
      await expect(wire.send({ method: 'GET', path: '/a', headers: {} })).rejects.toThrow(/ECONNRESET|socket hang up/);
    } finally {
      wire.close();
    }
  });
});
