import type { ServerResponse } from 'node:http';

/**
 * An answer held back until the unit of work that produced it is committed (unit-of-work.ts).
 * Every byte of an answer goes through `write` or `end` (the responder, the error writer,
 * Express in the control plane and its static files, Node's implicit headers inside `end`), and
 * its status line through `writeHead`. So holding replaces the response's `writeHead`, `write`
 * and `end`: a held `writeHead` sets the status and headers on the response (readers of
 * `statusCode` and `headersSent` see them), and held writes are queued in order. (Corking the
 * socket would not do: Node's `end()` uncorks it fully.) After its release a response writes
 * straight through (a streamed export).
 */
export interface HeldAnswer {
  /** Resolves when the answer is ready (its first write or end) or the connection closed unanswered. */
  readonly ready: Promise<void>;
  /** Sends what was held back (its writes are committed); later writes go straight through. */
  release(): void;
  /**
   * Drops what was held back (its writes could not be committed), entity headers with it; the
   * caller writes the answer that replaces it, straight through.
   */
  drop(): void;
}

/** Headers set when the request arrived (request-id.ts, cors.ts), which any answer to it carries. */
const KEPT_HEADERS = /^(x-request-id|vary|access-control-)/i;

/** @example const held = holdAnswer(res); await commit(held.ready); held.release(); */
export function holdAnswer(res: ServerResponse): HeldAnswer {
  const { writeHead, write, end } = res;
  const headersSent = inheritedGetter(res, 'headersSent');
  let calls: { send: typeof write | typeof end; args: unknown[] }[] = [];
  let released = false;
  let headHeld = false;
  let answered!: () => void;
  const ready = new Promise<void>((resolve) => {
    answered = resolve;
  });
  res.once('close', answered);
  const hold = (send: typeof write | typeof end, args: unknown[]) => {
    if (calls.push({ send, args }) === 1) answered();
  };

  // Held: what a step decided is in the response (status, headers), nothing is on the wire.
  Object.defineProperty(res, 'headersSent', {
    configurable: true,
    get() {
      return (!released && (headHeld || calls.length > 0)) || Boolean(headersSent?.call(res));
    },
  });
  res.writeHead = function heldWriteHead(this: ServerResponse, ...args: unknown[]) {
    if (released) return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    holdHead(this, args);
    headHeld = true;
    return this;
  } as ServerResponse['writeHead'];
  res.write = function heldWrite(this: ServerResponse, ...args: unknown[]) {
    if (released) return (write as (...a: unknown[]) => boolean).apply(this, args);
    hold(write, args);
    return true;
  } as ServerResponse['write'];
  res.end = function heldEnd(this: ServerResponse, ...args: unknown[]) {
    if (released) return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    hold(end, args);
    return this;
  } as ServerResponse['end'];

  return {
    ready,
    release() {
      released = true;
      for (const call of calls) (call.send as (...a: unknown[]) => unknown).apply(res, call.args);
      calls = [];
    },
    drop() {
      released = true;
      calls = [];
      for (const name of res.getHeaderNames()) if (!KEPT_HEADERS.test(name)) res.removeHeader(name);
      res.statusCode = 200;
    },
  };
}

/** A held `writeHead(status, [message], [headers])`: status and headers go onto the response. */
function holdHead(res: ServerResponse, args: unknown[]): void {
  const [status, second, third] = args;
  const headers = typeof second === 'string' ? third : second;
  if (typeof second === 'string') res.statusMessage = second;
  res.statusCode = status as number;
  if (Array.isArray(headers)) {
    const pairs: unknown[] = Array.isArray(headers[0]) ? headers : headers.flatMap((_, i) => (i % 2 ? [] : [[headers[i], headers[i + 1]]]));
    for (const [name, value] of pairs as [string, string][]) res.setHeader(name, value);
  } else if (headers && typeof headers === 'object') {
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value as string);
  }
}

/** The getter a property has on the object's prototypes (OutgoingMessage's headersSent). */
function inheritedGetter(object: object, name: string): (() => unknown) | undefined {
  for (let proto = Object.getPrototypeOf(object); proto; proto = Object.getPrototypeOf(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (descriptor) return descriptor.get;
  }
  return undefined;
}
