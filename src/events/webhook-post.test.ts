import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMockEndpoints } from './mock-endpoints.js';
import { destinationProblem } from './webhook-target.js';
import { createWebhookTransport } from './webhook-post.js';

describe('webhook transport: the addresses a host resolves to are judged as the connection is made', () => {
  const closers: (() => void)[] = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  async function receiver() {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => server.close());
    return { port: (server.address() as AddressInfo).port, hits };
  }

  it('refuses a name whose DNS answer is the mock itself, sending nothing; posts when it is not', async () => {
    const { port, hits } = await receiver();
    const transport = createWebhookTransport({ timeoutMs: 5_000, maxSockets: 4 });
    closers.push(() => transport.close());
    // The receiver's port plays the mock's: `localhost` is looked up (getaddrinfo) and answers 127.0.0.1 or ::1.
    const self = createMockEndpoints();
    self.note(port);
    const screen = (address: string) => destinationProblem(address, port, { self }, false);
    const refused = await transport.post(`http://localhost:${port}/loop`, {}, '{}', screen);
    expect(refused).toMatchObject({ errorCode: 'TARGET_IS_MOCK', error: expect.stringContaining('is this mock itself') });
    const literal = await transport.post(`http://[::ffff:127.0.0.1]:${port}/loop`, {}, '{}', screen);
    expect(literal).toMatchObject({ errorCode: 'TARGET_IS_MOCK' });
    expect(hits).toEqual([]);

    const elsewhere = (address: string) => destinationProblem(address, port, { self: createMockEndpoints() }, false);
    expect(await transport.post(`http://127.0.0.1:${port}/hook`, {}, '{}', elsewhere)).toMatchObject({ statusCode: 204 });
    // A name that passes is connected to as usual (the screened lookup hands its answers on).
    expect(await transport.post(`http://localhost:${port}/named`, {}, '{}', elsewhere)).toMatchObject({ statusCode: 204 });
    expect(hits).toEqual(['/hook', '/named']);
  });
});
