import type { ApiRequest, ApiResponse, Next } from '../../http/types.js';
import type { SharedBatches } from '../../store/store.js';
import { storeUnavailable } from './store-available.js';

/**
 * With a store several processes share: the request joins this process's next batch before any
 * step reads or writes state (rate-limit windows included), and leaves it when its answer is
 * ready (commitBeforeRespond) or its connection closes unanswered. A database that cannot be
 * reached is a 503 problem with Retry-After, never a crash or a hang; the store reconnects on the
 * next request.
 */
export function sharedBatch(options: { shared: SharedBatches }) {
  const { shared } = options;
  return function sharedBatchStep(_req: ApiRequest, res: ApiResponse, next: Next) {
    res.once('close', () => void shared.settle(res).catch(() => {}));
    shared.enter(res).then(
      () => next(),
      (error: Error) => {
        void shared.settle(res).catch(() => {});
        next(storeUnavailable(`the shared database cannot be reached: ${error.message}`));
      },
    );
  };
}
