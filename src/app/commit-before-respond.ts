import type { ServerResponse } from 'node:http';
import type { Logger } from '../logging/logger.js';
import type { Store } from '../store/store.js';

/**
 * With a durable store, a response is an acknowledgement: the request's writes are committed
 * before any byte of its answer leaves. Every byte of an answer goes through `write` or `end`
 * (the responder, the error writer, Express in the control plane and its static files, Node's
 * implicit headers inside `end`); `writeHead` only stores the headers. So this hook holds the
 * response's `write` and `end` calls back, and releases them once they are committed.
 *
 * Group commit: the first held call of a response queues it; on the next `setImmediate` (after
 * every request ready in this turn of the event loop has been handled) ONE transaction commits
 * the writes of them all, then their held calls are replayed in order. Fifty concurrent POSTs
 * cost one commit instead of fifty. (Corking the socket would not do: Node's `end()` uncorks it
 * fully.) After its release a response writes straight through (a streamed export).
 *
 * If the commit fails (disk full, file removed), the queued connections are destroyed instead of
 * answered: no client sees an acknowledgement, and the writes stay pending for the next commit.
 *
 * @example const commit = commitBeforeRespond({ store, logger }); commit?.(res);
 */
export function commitBeforeRespond(options: { store: Store; logger: Logger }): ((res: ServerResponse) => void) | undefined {
  const { store, logger } = options;
  if (!store.durable) return undefined;
  const shared = store.shared;
  let waiting: HeldResponse[] = [];

  /** A shared store commits the request's batch (src/store/shared-store.ts) instead. */
  function commitShared(held: HeldResponse): void {
    shared!.settle(held.res).then(
      () => held.release(),
      (error: Error) => {
        logger.error({ err: error }, 'shared store commit failed: the connection is closed without an answer');
        held.res.destroy(error);
      },
    );
  }

  function commitWaiting(): void {
    const batch = waiting;
    waiting = [];
    try {
      store.commit();
    } catch (error) {
      logger.error({ err: error, responses: batch.length }, 'commit failed: the connections are closed without an answer');
      for (const held of batch) held.res.destroy(error as Error);
      return;
    }
    for (const held of batch) held.release();
  }

  return function hookResponse(res) {
    const { write, end } = res;
    const calls: { send: typeof write | typeof end; args: unknown[] }[] = [];
    let released = false;
    const held: HeldResponse = {
      res,
      release() {
        released = true;
        for (const call of calls) (call.send as (...a: unknown[]) => unknown).apply(res, call.args);
      },
    };
    const hold = (send: typeof write | typeof end, args: unknown[]) => {
      if (calls.push({ send, args }) !== 1) return;
      if (shared) commitShared(held);
      else if (waiting.push(held) === 1) setImmediate(commitWaiting);
    };
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

interface HeldResponse {
  res: ServerResponse;
  /** Sends what was held back (the commit is done). */
  release(): void;
}
