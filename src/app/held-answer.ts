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

/** Where a held response keeps its hold (a symbol: nothing else sees it). */
const HELD = Symbol('held answer');

type Send = (...args: unknown[]) => unknown;

/** What a response holds back, and its own methods, which the held ones call once released. */
interface Hold {
  readonly writeHead: Send;
  readonly write: Send;
  readonly end: Send;
  /** OutgoingMessage's own `headersSent` getter. */
  readonly headersSent: (() => unknown) | undefined;
  readonly answered: () => void;
  calls: { send: Send; args: unknown[] }[];
  released: boolean;
  headHeld: boolean;
}

type HeldResponse = ServerResponse & { [HELD]: Hold };

/**
 * The held methods and the `headersSent` getter are functions of this module, shared by every
 * response; each response's hold is one plain object under a symbol. A getter or methods made
 * as closures per response (as the first version did) gave each response hidden-class state
 * that the old generation kept, and with it the whole request until the next major collection:
 * with a durable store every answer's request was promoted by minor GCs (issue 24, SQLite GET:
 * 145 MB promoted and 5 mark-compacts per 20,000 requests; 15 MB and 1 with shared functions).
 *
 * @example const held = holdAnswer(res); await commit(held.ready); held.release();
 */
export function holdAnswer(res: ServerResponse): HeldAnswer {
  let answered!: () => void;
  const ready = new Promise<void>((resolve) => {
    answered = resolve;
  });
  // Held again (a request that runs again after its hold was dropped): the response's own
  // methods are the first hold's, not the held ones now in their place.
  const own: Pick<Hold, 'writeHead' | 'write' | 'end'> = (res as Partial<HeldResponse>)[HELD] ?? { writeHead: res.writeHead as Send, write: res.write as Send, end: res.end as Send };
  const hold: Hold = {
    writeHead: own.writeHead,
    write: own.write,
    end: own.end,
    headersSent: inheritedGetter(res, 'headersSent'),
    answered,
    calls: [],
    released: false,
    headHeld: false,
  };
  // `on`, not `once`: answering twice does nothing, and a once-wrapper per response costs its removal too.
  res.on('close', answered);
  (res as HeldResponse)[HELD] = hold;
  // Held: what a step decided is in the response (status, headers), nothing is on the wire.
  Object.defineProperty(res, 'headersSent', { configurable: true, get: heldHeadersSent });
  res.writeHead = heldWriteHead as ServerResponse['writeHead'];
  res.write = heldWrite as ServerResponse['write'];
  res.end = heldEnd as ServerResponse['end'];

  return {
    ready,
    release() {
      hold.released = true;
      for (const call of hold.calls) call.send.apply(res, call.args);
      hold.calls = [];
    },
    drop() {
      hold.released = true;
      hold.calls = [];
      for (const name of res.getHeaderNames()) if (!KEPT_HEADERS.test(name)) res.removeHeader(name);
      res.statusCode = 200;
    },
  };
}

function heldHeadersSent(this: HeldResponse): boolean {
  const hold = this[HELD];
  return (!hold.released && (hold.headHeld || hold.calls.length > 0)) || Boolean(hold.headersSent?.call(this));
}

function heldWriteHead(this: HeldResponse, ...args: unknown[]): unknown {
  const hold = this[HELD];
  if (hold.released) return hold.writeHead.apply(this, args);
  holdHead(this, args);
  hold.headHeld = true;
  return this;
}

function heldWrite(this: HeldResponse, ...args: unknown[]): unknown {
  const hold = this[HELD];
  if (hold.released) return hold.write.apply(this, args);
  holdCall(hold, hold.write, args);
  return true;
}

function heldEnd(this: HeldResponse, ...args: unknown[]): unknown {
  const hold = this[HELD];
  if (hold.released) return hold.end.apply(this, args);
  holdCall(hold, hold.end, args);
  return this;
}

/** Queues a write or end; the first one makes the answer ready. */
function holdCall(hold: Hold, send: Send, args: unknown[]): void {
  if (hold.calls.push({ send, args }) === 1) hold.answered();
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
