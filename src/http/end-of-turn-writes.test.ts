import { once } from 'node:events';
import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createEndOfTurnWrites } from './end-of-turn-writes.js';

const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A loopback connection: the server's end (which writes) and the client's (which reads). */
async function connection(): Promise<{ server: Socket; client: Socket; received: Received }> {
  const listener = createServer();
  servers.push(listener);
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const accepted = once(listener, 'connection') as Promise<[Socket]>;
  const client = connect((listener.address() as AddressInfo).port, '127.0.0.1');
  const [server] = await accepted;
  sockets.push(server, client);
  return { server, client, received: collect(client) };
}

/** What a socket has received so far; `length` is cheap to ask for. */
function collect(socket: Socket): Received {
  const chunks: Buffer[] = [];
  let length = 0;
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
  });
  return { all: () => Buffer.concat(chunks), length: () => length };
}

interface Received {
  all(): Buffer;
  length(): number;
}

/** Resolves with what was received once it is `length` bytes, or rejects after 10 s. */
async function bytes(received: Received, length: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (received.length() < length) {
    if (Date.now() > deadline) throw new Error(`got ${received.length()} of ${length} bytes`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return received.all().toString('latin1');
}

/** Runs `work` in the turn the server's end reads the client's next bytes (a request arriving). */
function onArrival(server: Socket, client: Socket, work: () => void): void {
  server.once('data', work);
  client.write('x');
}

/**
 * Records what the socket hands to the system (its own `_write` / `_writev`, which the holder
 * wraps): one entry per call, the chunks as text. With `failure`, every call fails with it.
 */
function spyOnWire(socket: Socket, failure?: Error): { calls: string[][] } {
  const calls: string[][] = [];
  const { _write: write, _writev: writev } = socket;
  socket._write = function spiedWrite(chunk, encoding, callback) {
    calls.push([String(chunk)]);
    if (failure) return callback(failure);
    return write.call(this, chunk, encoding, callback);
  };
  socket._writev = function spiedWritev(chunks, callback) {
    calls.push(chunks.map(({ chunk }) => String(chunk)));
    if (failure) return callback(failure);
    return writev!.call(this, chunks, callback);
  };
  return { calls };
}

describe('end-of-turn writes', () => {
  it('takes a write made in the turn its request arrived at once, and puts it on the wire when that turn ends, before any timer of the next turn', async () => {
    const holdWrites = createEndOfTurnWrites();
    const { server, client, received } = await connection();
    const wire = spyOnWire(server);
    const seen: Record<string, number | boolean> = {};
    let written = false;
    await new Promise<void>((resolve) =>
      onArrival(server, client, () => {
        // Queued before the holder's end of turn: runs in the turn, before the held bytes go out.
        setImmediate(() => {
          // The write's callback has run within the turn: node:http can finish its response there.
          seen.writtenInTurn = written;
        });
        holdWrites(server);
        server.write('answer', () => (written = true));
        seen.wireCallsInTurn = wire.calls.length;
        setTimeout(() => {
          seen.wireCallsAtTimer = wire.calls.length;
          resolve();
        }, 0);
      }),
    );
    expect(seen).toEqual({ wireCallsInTurn: 0, writtenInTurn: true, wireCallsAtTimer: 1 });
    expect(wire.calls[0]).toEqual(['answer']);
    expect(await bytes(received, 6)).toBe('answer');
  });

  it('writes straight through after the turn (a delayed answer, the later pieces of a stream)', async () => {
    const holdWrites = createEndOfTurnWrites();
    const { server, client, received } = await connection();
    await new Promise<void>((resolve) => onArrival(server, client, () => (holdWrites(server), resolve())));
    await new Promise((resolve) => setTimeout(resolve, 1));
    server.write('later');
    expect(server.writableLength).toBe(0);
    expect(await bytes(received, 5)).toBe('later');
  });

  it('sends every held connection at the end of one turn, each with its bytes in order in one writev', async () => {
    const holdWrites = createEndOfTurnWrites();
    const pairs = await Promise.all([connection(), connection(), connection()]);
    const wires = pairs.map(({ server }) => spyOnWire(server));
    const calls: Record<string, number[]> = {};
    await new Promise<void>((resolve) => {
      // The writes of three requests read in one turn (one data event arranges the others).
      onArrival(pairs[0].server, pairs[0].client, () => {
        for (const [index, { server }] of pairs.entries()) {
          holdWrites(server);
          // Corked chunks reach the socket as one _writev, as node:http's head and body do.
          server.cork();
          server.write(`head ${index};`);
          server.write(`body ${index}`);
          server.uncork();
          server.write(` end ${index}`);
        }
        calls.inTurn = wires.map((wire) => wire.calls.length);
        setImmediate(() => {
          calls.afterTurn = wires.map((wire) => wire.calls.length);
          resolve();
        });
      });
    });
    expect(calls).toEqual({ inTurn: [0, 0, 0], afterTurn: [1, 1, 1] });
    for (const [index, wire] of wires.entries()) expect(wire.calls[0]).toEqual([`head ${index};`, `body ${index}`, ` end ${index}`]);
    for (const [index, { received }] of pairs.entries()) expect(await bytes(received, 19)).toBe(`head ${index};body ${index} end ${index}`);
  });

  it('ends the connection with the error when the kernel refuses held bytes after they were taken', async () => {
    const holdWrites = createEndOfTurnWrites();
    const { server, client } = await connection();
    spyOnWire(server, new Error('EPIPE: the client went away'));
    const failed = once(server, 'error');
    onArrival(server, client, () => {
      holdWrites(server);
      server.write('answer');
    });
    const [error] = (await failed) as [Error];
    expect(error.message).toBe('EPIPE: the client went away');
    expect(server.destroyed).toBe(true);
  });

  it('lets node:http finish a held answer in its own turn (the request is not kept alive until the write)', async () => {
    const holdWrites = createEndOfTurnWrites();
    const events: string[] = [];
    const server = createHttpServer((req, res) => {
      // Queued before the holder's end of turn, which puts the bytes on the wire after it.
      setImmediate(() => events.push('turn ended'));
      holdWrites(req.socket);
      res.on('finish', () => events.push('finish'));
      res.end('{}');
    });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(await res.text()).toBe('{}');
    expect(events).toEqual(['finish', 'turn ended']);
  });

  it('sends what was written before a connection destroyed in the same turn closes', async () => {
    const holdWrites = createEndOfTurnWrites();
    const { server, client, received } = await connection();
    const closed = once(client, 'close');
    onArrival(server, client, () => {
      holdWrites(server);
      server.write('first answer');
      server.destroy();
    });
    await closed;
    expect(received.all().toString()).toBe('first answer');
  });

  it('keeps backpressure: a held write larger than the socket buffers waits for a slow client, then arrives whole', async () => {
    const holdWrites = createEndOfTurnWrites();
    const { server, client, received } = await connection();
    client.pause();
    const payload = Buffer.alloc(32 * 1024 * 1024, 'z');
    let accepted: boolean | undefined;
    onArrival(server, client, () => {
      holdWrites(server);
      accepted = server.write(payload);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The turn is over: what the kernel could not take waits for the client, as any write would.
    expect(accepted).toBe(false);
    expect(server.writableLength).toBeGreaterThan(0);
    const drained = once(server, 'drain');
    client.resume();
    await drained;
    await bytes(received, payload.length);
    expect(received.all().equals(payload)).toBe(true);
  });

  it('leaves an HTTP answer byte for byte as it was', async () => {
    const answer: RequestListener = (req, res) => {
      res.sendDate = false;
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': 11 });
      res.end('{"id":"a1"}');
    };
    const holdWrites = createEndOfTurnWrites();
    const raw = async (listener: RequestListener) => {
      const server = createHttpServer(listener);
      servers.push(server);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
      sockets.push(client);
      const received = collect(client);
      // Two requests on one connection: the second answer goes through the same wrapped socket.
      client.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
      await bytes(received, 1);
      const first = received.length();
      client.write('GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await once(client, 'close');
      return { first, all: received.all().toString('latin1') };
    };
    const plain = await raw(answer);
    const held = await raw((req, res) => (holdWrites(req.socket), answer(req, res)));
    expect(held).toEqual(plain);
    expect(held.all).toContain('HTTP/1.1 201 Created\r\n');
    expect(held.all.endsWith('{"id":"a1"}')).toBe(true);
  });
});
