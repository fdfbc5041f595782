import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';
import type { Logger } from '../../logging/logger.js';
import { ReadMustLockError, StoreUnavailableError, type Store, type UnitLock } from '../../store/store.js';
import { holdAnswer } from '../held-answer.js';
import { readBody } from '../../http/read-request.js';
import { isOutsideApi, requestState, type RequestState } from '../../http/request-state.js';
import { storeUnavailable } from './store-available.js';

/** Writes an answer for an error (the error writer), straight through. */
type WriteError = (error: unknown, req: ApiRequest, res: ApiResponse) => void;

/**
 * The unit of work of a request: everything after this step — the API's steps or the control
 * plane — runs as ONE `store.transaction`, which is the only way a change becomes durable or
 * shared. What "commit" means is the store's (src/store/store.ts): nothing in memory; one
 * SQLite transaction for every unit that ends in one turn of the event loop (group commit);
 * this process's next batch of a shared store, which starts from what the others committed.
 *
 * With a store whose writes outlive the process (`durable`), an answer is an acknowledgement:
 * it is held (held-answer.ts) from here until its unit is committed — the unit ends when the
 * answer is ready or the connection closed — and then released. If the store refuses the unit
 * (a SQLite file that cannot take writes, a database that cannot be reached) or its commit
 * fails, no client sees an acknowledgement: the held answer is dropped and a 503
 * `store-unavailable` problem with Retry-After says why and what became of the writes; the
 * store has put its working set back to what is committed. A connection is never closed
 * without an answer. In memory answers go straight out (nothing to wait for).
 *
 * With a store that locks per account (a shared store: PostgreSQL, SQLite's shared layout), `lockOf` says what the unit
 * locks (unit-lock.ts): the request's account, or everything; and an API request's body (a
 * declared Content-Length within `bodyLimit`) is read off the wire before the unit starts, so a
 * slow client does not hold its batch (validation reads it from `preReadBody`); then
 * `outsideUnit` (the contract's check of the request, which reads no state) runs, so the batch
 * holds only what reads and writes state. Other stores are not asked, and read and check the
 * body inside the unit as before. A read (a GET of one account,
 * `lock.read`) runs without the account's lock; if the store answers ReadMustLockError (it wrote
 * and another process changed the account meanwhile), its held answer is dropped unsent and the
 * request runs again under the lock. The unit's wait (`UnitHandle.waitOutside`) reaches the steps
 * as the request state's `waitOutsideUnit`: a scenario's latency is waited out outside the batch.
 *
 * @example pipeline([requestId(…), …, unitOfWork({ store, logger, writeError, lockOf }), route])
 */
export function unitOfWork(options: { store: Pick<Store, 'transaction' | 'durable' | 'locksAccounts'>; logger: Logger; writeError: WriteError; lockOf?: (req: ApiRequest) => UnitLock; bodyLimit?: number; outsideUnit?: (req: ApiRequest) => void }) {
  const { store, logger, writeError } = options;
  const lockOf = store.locksAccounts ? options.lockOf : undefined;
  const bodyLimit = store.locksAccounts ? options.bodyLimit : undefined;
  const outsideUnit = store.locksAccounts ? options.outsideUnit : undefined;
  const answerFor = (error: unknown) => (error instanceof StoreUnavailableError ? storeUnavailable(error.reason, error.outcome) : error);

  /** Memory: the work runs now and its answer goes straight out. */
  function straight(req: ApiRequest, res: ApiResponse, next: Next): void {
    store.transaction(() => next(), 'request').catch((error: unknown) => {
      if (!res.headersSent) writeError(answerFor(error), req, res);
    });
  }

  /** Durable: the answer waits for the commit of its unit. */
  function held(req: ApiRequest, res: ApiResponse, next: Next): void {
    const length = bodyLimit === undefined ? NaN : Number(req.headers['content-length']);
    const state = length > 0 && length <= bodyLimit! ? requestState(req) : undefined;
    if (state && state.preReadBody === undefined && !isOutsideApi(state.pathname)) {
      // A client that stops sending mid-body has gone: nothing to answer.
      readBody(req, bodyLimit!).then(
        (body) => {
          state.preReadBody = body;
          checkedThenInUnit(req, res, next);
        },
        () => res.destroy(),
      );
      return;
    }
    checkedThenInUnit(req, res, next);
  }

  /** What reads no state (the contract's check of the request) runs before the unit, holding no batch. */
  function checkedThenInUnit(req: ApiRequest, res: ApiResponse, next: Next): void {
    if (outsideUnit && !isOutsideApi(requestState(req).pathname)) {
      try {
        outsideUnit(req);
      } catch (error) {
        // Left to the steps inside the unit, which check the request again and answer for it.
        logger.debug({ err: error }, 'the check before the unit failed; the request is checked inside it');
      }
    }
    inUnit(req, res, next);
  }

  function inUnit(req: ApiRequest, res: ApiResponse, next: Next, lock = lockOf?.(req)): void {
    const answer = holdAnswer(res);
    let started = false;
    let state: RequestState | undefined;
    store
      .transaction((unit) => {
        started = true;
        // Only a store that locks has a wait other than a plain one. The handle's own function, not
        // a closure made here: one per request capturing the unit cost 15–18 % of GET throughput.
        if (unit && lockOf) (state = requestState(req)).waitOutsideUnit = unit.waitOutside;
        next();
        return answer.ready;
      }, 'request', lock)
      .finally(() => state && unitEnded(state))
      .then(
        () => answer.release(),
        (error: unknown) => {
          if (error instanceof ReadMustLockError && lock?.read) {
            // The read wrote after all and could not commit without the lock: nothing of it was
            // committed or sent; the request runs again (the steps after this one), locked.
            answer.drop();
            inUnit(req, res, next, { account: lock.account });
            return;
          }
          if (started) logger.error({ err: error }, 'commit failed: the requests are answered 503 store-unavailable');
          answer.drop();
          try {
            writeError(answerFor(error), req, res);
          } catch (writeFailure) {
            logger.error({ err: writeFailure }, 'the store-unavailable answer could not be written');
            res.destroy();
          }
        },
      );
  }

  return store.durable ? held : straight;
}

/** What only the unit needed goes with it (the journal keeps a request's state, and a wait handle would keep its unit). */
function unitEnded(state: RequestState): void {
  state.waitOutsideUnit = undefined;
  state.prechecked = undefined;
}
