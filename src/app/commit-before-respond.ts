import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logging/logger.js';
import type { Store } from '../store/store.js';

/**
 * With a durable store, a response is an acknowledgement: the request's writes are committed
 * before any byte of its answer leaves. Every byte of an answer goes through `write` or `end`
 * (the responder, the error writer, Express in the control plane and its static files, Node's
 * implicit headers inside `end`), and its status line through `writeHead`. So this hook holds
 * the response's `writeHead`, `write` and `end` calls back (a held `writeHead` sets the status
 * and headers on the response, so readers of `statusCode` see them), and releases them once the
 * writes are committed.
 *
 * Group commit: the first held call of a response queues it; on the next `setImmediate` (after
 * every request ready in this turn of the event loop has been handled) ONE transaction commits
 * the writes of them all, then their held calls are replayed in order. Fifty concurrent POSTs
 * cost one commit instead of fifty. (Corking the socket would not do: Node's `end()` uncorks it
 * fully.) After its release a response writes straight through (a streamed export).
 *
 * If the commit fails (disk full, file read-only, database gone), no client sees an
 * acknowledgement: each held answer is dropped and replaced by the answer `onFailure` writes (a
 * 503 `store-unavailable` problem), and the store has already put its working set back to what
 * is committed. A connection is never closed without an answer.
 *
 * @example const commit = commitBeforeRespond({ store, logger, onFailure }); commit?.(req, res);
 */
export function commitBeforeRespond(options: {
  store: Store;
  logger: Logger;
  /** Writes the answer that replaces one whose writes could not be committed. */
  onFailure: (req: IncomingMessage, res: ServerResponse, error: Error) => void;
}): ((req: IncomingMessage, res: ServerResponse) => void) | undefined {
  const { store, logger } = options;
  if (!store.durable) return undefined;
  const shared = store.shared;
  let waiting: HeldResponse[] = [];

  /** A shared store commits the request's batch (src/store/shared-store.ts) instead. */
  function commitShared(held: HeldResponse): void {
    shared!.settle(held.res).then(
      () => held.release(),
      (error: Error) => {
        logger.error({ err: error }, 'shared store commit failed: answered 503 store-unavailable');
        held.fail(error);
      },
    );
  }

  function commitWaiting(): void {
    const batch = waiting;
    waiting = [];
    try {
      store.commit();
    } catch (error) {
      logger.error({ err: error, responses: batch.length }, 'commit failed: the requests are answered 503 store-unavailable');
      for (const held of batch) held.fail(error as Error);
      return;
    }
    for (const held of batch) held.release();
  }

  return function hookResponse(req, res) {
    const { writeHead, write, end } = res;
    const headersSent = inheritedGetter(res, 'headersSent');
    let calls: { send: typeof write | typeof end; args: unknown[] }[] = [];
    let released = false;
    const held: HeldResponse = {
      res,
      release() {
        released = true;
        for (const call of calls) (call.send as (...a: unknown[]) => unknown).apply(res, call.args);
        calls = [];
      },
      fail(error) {
        released = true;
        calls = [];
        // The answer that was held goes entirely: its entity headers with it.
        for (const name of res.getHeaderNames()) if (!KEPT_HEADERS.test(name)) res.removeHeader(name);
        res.statusCode = 200;
        try {
          options.onFailure(req, res, error);
        } catch (writeError) {
          logger.error({ err: writeError }, 'the store-unavailable answer could not be written');
          res.destroy();
        }
      },
    };
    const hold = (send: typeof write | typeof end, args: unknown[]) => {
      if (calls.push({ send, args }) !== 1) return;
      if (shared) commitShared(held);
      else if (waiting.push(held) === 1) setImmediate(commitWaiting);
    };
    // Held: what a step decided is in the response (status, headers), nothing is on the wire.
    let headHeld = false;
    Object.defineProperty(res, 'headersSent', {
      configurable: true,
      get() {
        return (!released && (headHeld || calls.length > 0)) || Boolean(headersSent?.call(res));
      },
    });
    res.writeHead = function heldWriteHead(this: ServerResponse, ...args: unknown[]) {
      if (released) return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
      const [status, second, third] = args;
      const headers = typeof second === 'string' ? third : second;
      if (typeof second === 'string') this.statusMessage = second;
      this.statusCode = status as number;
      if (Array.isArray(headers)) {
        const pairs: unknown[] = Array.isArray(headers[0]) ? headers : headers.flatMap((_, i) => (i % 2 ? [] : [[headers[i], headers[i + 1]]]));
        for (const [name, value] of pairs as [string, string][]) this.setHeader(name, value);
      } else if (headers && typeof headers === 'object') {
        for (const [name, value] of Object.entries(headers)) if (value !== undefined) this.setHeader(name, value as string);
      }
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
  };
}

/** The getter a property has on the object's prototypes (OutgoingMessage's headersSent). */
function inheritedGetter(object: object, name: string): (() => unknown) | undefined {
  for (let proto = Object.getPrototypeOf(object); proto; proto = Object.getPrototypeOf(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (descriptor) return descriptor.get;
  }
  return undefined;
}

/** Headers set when the request arrived (request-id.ts, cors.ts), which any answer to it carries. */
const KEPT_HEADERS = /^(x-request-id|vary|access-control-)/i;

interface HeldResponse {
  res: ServerResponse;
  /** Sends what was held back (the commit is done). */
  release(): void;
  /** Drops what was held back and answers with `onFailure` instead (the commit failed). */
  fail(error: Error): void;
}
