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
 * the durable stores' group commit does anyway, src/app/held-answer.ts) cost the same
 * one `writev` each, but the client wakes once for the lot (README, Performance).
 *
 * Only the system call waits, and only for small writes. The socket takes a held write at once
 * — its callback runs, as it does when the kernel takes a write whole — and keeps the bytes;
 * at the end of the turn they go out, every held write of a connection in one `writev`. So
 * node:http finishes the response in its own turn and the request's objects die young: holding
 * the whole response until the turn's end (as the first version did, through the write's
 * callback) kept every request of a turn alive across minor garbage collections, which promoted
 * them to the old generation and cost the memory mode ~30 µs of CPU per GET at idle in major
 * collections (issue 24; `node --trace-gc`: 3–4 mark-compacts per 20,000 GETs, none without
 * the hold). Bytes and their order are unchanged. A write larger than HOLD_LIMIT (a big export,
 * a PDF) goes straight out after what is held, with the socket's backpressure. A write made after
 * the turn (an answer delayed by a scenario, the later pieces of a streamed export) goes straight
 * out; so do the bytes of a connection destroyed before the turn ends (written first, then the
 * connection closes, as before). A held write that the kernel then refuses (the client went
 * away) ends that connection with the error, as a refused write does. Nothing waits past the
 * turn: the writes go in a `setImmediate` queued when the request arrived (the check phase right
 * after the poll phase that read it).
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

/** Writes up to this size are held; a larger one goes straight out (with backpressure), after what is held. */
export const HOLD_LIMIT = 64 * 1024;

interface HeldChunk {
  chunk: Buffer | string;
  encoding: BufferEncoding;
}

interface HoldState {
  /** Writes wait for the end of the turn. */
  holding: boolean;
  /** The bytes taken while holding, in order: one `writev` at the end of the turn. */
  pending: HeldChunk[];
  /** The socket's own `_writev` (node:net), which sends the held bytes. */
  send: (chunks: HeldChunk[], callback: (error?: Error | null) => void) => void;
}

type HeldSocket = Socket & { [HELD]: HoldState };

/** Wraps the socket's own write methods (once per connection, not per request). */
function install(socket: HeldSocket): HoldState {
  // node:net writes through `_write`, and `_writev` when several chunks were buffered (an
  // answer's head and body, corked by node:http).
  const { _write: write, _destroy: destroy, _final: final } = socket;
  const writev = socket._writev!;
  const state: HoldState = { holding: false, pending: [], send: (chunks, callback) => writev.call(socket, chunks, callback) };
  socket[HELD] = state;
  const take = (chunks: HeldChunk[], callback: (error?: Error | null) => void, straight: () => void): void => {
    if (!state.holding || chunks.reduce((size, { chunk }) => size + chunk.length, 0) > HOLD_LIMIT) {
      sendPending(socket, state);
      straight();
      return;
    }
    state.pending.push(...chunks);
    callback();
  };
  socket._write = function heldWrite(chunk, encoding, callback) {
    take([{ chunk, encoding }], callback, () => write.call(this, chunk, encoding, callback));
  };
  socket._writev = function heldWritev(chunks, callback) {
    take(chunks, callback, () => writev.call(this, chunks, callback));
  };
  // Ended before the turn ends (an answer with Connection: close): the held bytes go before the
  // end of the stream, which would otherwise shut the connection down under them.
  socket._final = function finalAfterPending(callback) {
    sendPending(socket, state);
    return final!.call(this, callback);
  };
  // Destroyed before the turn ends (a scenario's connection reset after an earlier answer on
  // the same connection): what was written goes out before the connection closes, as before.
  socket._destroy = function destroyAfterPending(error, callback) {
    sendPending(socket, state);
    return destroy.call(this, error, callback);
  };
  return state;
}

function sendPending(socket: Socket, state: HoldState): void {
  if (!state.pending.length) return;
  const chunks = state.pending;
  state.pending = [];
  try {
    // The writes were acknowledged when they were taken: a failure now ends the connection, as a
    // write the kernel refuses does (node:http sees the socket's error and close).
    state.send(chunks, (error) => {
      if (error) socket.destroy(error);
    });
  } catch (error) {
    socket.destroy(error as Error);
  }
}
