import type { Socket } from 'node:net';

/**
 * Sends the bytes a connection writes while its request is handled at the end of the event
 * loop turn the request arrived in, together with the answers of every other request read in
 * that turn, instead of one `writev` in the middle of reading the others.
 *
 * Why: on loopback a `writev` runs the receiving side's TCP stack too and wakes the client. An
 * answer written the moment it is ready wakes a client that has gone back to sleep, the
 * client's next request then wakes this process, and on a busy machine each wake-up can
 * preempt the other side: the memory mode spent 44 % of its busy time in `writev` under
 * `autocannon -c 50`. Answers written together after all of a turn's requests were read (what
 * the durable stores' group commit does anyway, src/app/commit-before-respond.ts) cost the same
 * one `writev` each, but the client wakes once for the lot (README, Performance).
 *
 * Only the system call waits: the HTTP layer has written the response (`headersSent`,
 * `writableEnded`, the socket's `writableLength`); the socket simply completes that write at
 * the end of the turn, as a write the kernel could not take at once would complete later.
 * Bytes and their order are unchanged. A write made after the turn (an answer delayed by a
 * scenario, the later pieces of a streamed export) goes straight out; so do the bytes of a
 * connection destroyed before the turn ends (written first, then the connection closes, as
 * before). Nothing waits past the turn: the writes go in a `setImmediate` queued when the
 * request arrived (the check phase right after the poll phase that read it).
 *
 * Not for a durable store: it writes its answers in that check phase itself, after the commit.
 *
 * @example
 * const holdWrites = createEndOfTurnWrites();
 * const listener = (req, res) => { holdWrites(req.socket); handle(req, res); };
 */
export function createEndOfTurnWrites(): (socket: Socket) => void {
  let held: HeldSocket[] = [];

  function endTurn(): void {
    const sockets = held;
    held = [];
    for (const socket of sockets) {
      const state = socket[HELD];
      state.holding = false;
      sendPending(socket, state);
    }
  }

  return function holdWrites(socket) {
    const state = (socket as HeldSocket)[HELD] ?? install(socket as HeldSocket);
    if (state.holding || socket.destroyed) return;
    state.holding = true;
    if (held.push(socket as HeldSocket) === 1) setImmediate(endTurn);
  };
}

const HELD = Symbol('end-of-turn writes');

interface HoldState {
  /** Writes wait for the end of the turn. */
  holding: boolean;
  /** The write the socket's stream asked for while holding (a stream has one in flight at most). */
  pending?: () => void;
}

type HeldSocket = Socket & { [HELD]: HoldState };

/** Wraps the socket's own write methods (once per connection, not per request). */
function install(socket: HeldSocket): HoldState {
  const state: HoldState = { holding: false };
  socket[HELD] = state;
  // node:net writes through `_write`, and `_writev` when several chunks were buffered (an
  // answer's head and body, corked by node:http).
  const { _write: write, _writev: writev, _destroy: destroy } = socket;
  socket._write = function heldWrite(chunk, encoding, callback) {
    if (!state.holding) return write.call(this, chunk, encoding, callback);
    state.pending = () => write.call(this, chunk, encoding, callback);
  };
  if (writev) {
    socket._writev = function heldWritev(chunks, callback) {
      if (!state.holding) return writev.call(this, chunks, callback);
      state.pending = () => writev.call(this, chunks, callback);
    };
  }
  // Destroyed before the turn ends (a scenario's connection reset after an earlier answer on
  // the same connection): what was written goes out before the connection closes, as before.
  socket._destroy = function destroyAfterPending(error, callback) {
    sendPending(socket, state);
    return destroy.call(this, error, callback);
  };
  return state;
}

function sendPending(socket: Socket, state: HoldState): void {
  const pending = state.pending;
  if (!pending) return;
  state.pending = undefined;
  try {
    pending();
  } catch (error) {
    // node:net reports write errors to the write's callback; one that throws ends only its connection.
    socket.destroy(error as Error);
  }
}
