import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { holdAnswer } from './held-answer.js';

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

/** Serves two requests at once, each held; returns both responses as the handler saw them while held, and the bodies the clients got. */
async function twoHeldAnswers() {
  const held: { res: ServerResponse; headersSentWhileHeld: boolean }[] = [];
  server = createServer((_req, res) => {
    const answer = holdAnswer(res);
    res.writeHead(201, { 'Content-Type': 'text/plain' });
    res.end(`answer ${held.length + 1}`);
    held.push({ res, headersSentWhileHeld: res.headersSent });
    void answer.ready.then(() => setImmediate(() => answer.release()));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const answers = await Promise.all([fetch(url), fetch(url)]);
  const bodies = await Promise.all(answers.map(async (answer) => `${answer.status} ${await answer.text()}`));
  return { held, bodies };
}

describe('holdAnswer', () => {
  it('holds the head and the body until released, then sends them as written', async () => {
    const { held, bodies } = await twoHeldAnswers();
    expect(held.map((h) => h.headersSentWhileHeld)).toEqual([true, true]);
    expect(bodies.sort()).toEqual(['201 answer 1', '201 answer 2']);
  });

  // Closures made per response (methods or a headersSent getter defined on each one) kept every
  // held request reachable from the old generation until a major GC (issue 24): the held
  // methods and the getter are shared by all responses.
  it('gives every held response the same methods and headersSent getter, none made per response', async () => {
    const { held } = await twoHeldAnswers();
    const [one, two] = held.map((h) => h.res);
    expect(one.writeHead).toBe(two.writeHead);
    expect(one.write).toBe(two.write);
    expect(one.end).toBe(two.end);
    const getter = (res: ServerResponse) => Object.getOwnPropertyDescriptor(res, 'headersSent')?.get;
    expect(getter(one)).toBeTypeOf('function');
    expect(getter(one)).toBe(getter(two));
  });

  it('holds a response again after its hold was dropped (a request run again) and sends the second answer once released', async () => {
    server = createServer((_req, res) => {
      const first = holdAnswer(res);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('first');
      first.drop();
      const second = holdAnswer(res);
      res.writeHead(202, { 'Content-Type': 'text/plain' });
      res.end('second');
      void second.ready.then(() => second.release());
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    expect(`${answer.status} ${await answer.text()}`).toBe('202 second');
  });
});
