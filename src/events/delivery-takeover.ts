import type { Logger } from '../logging/logger.js';
import type { Scope, SharedBatches } from '../store/store.js';
import { isFinished, type Delivery, type DeliveryRecords } from './delivery-log.js';

/** How often a process says it is alive and looks for deliveries of processes that are not. */
export const HEARTBEAT_MS = 1000;
/** A process not heard from for this long is taken for stopped; its unfinished deliveries are adopted. */
export const PRESUMED_STOPPED_MS = 5000;

const heartbeatKey = (processNumber: number) => `process:${processNumber}:heartbeat`;

/**
 * With a shared store, each unfinished webhook delivery belongs to one process (the one whose
 * request published the event), and only that one sends it. Every process writes a heartbeat
 * (wall time) into the store once a second; in the same batch it looks for unfinished
 * deliveries whose owner has not beaten for PRESUMED_STOPPED_MS, and claims them by writing
 * itself as their owner. Batches of all processes run one at a time, so the first to claim
 * wins and the others see the new owner; the claimer then adopts them (webhook-dispatcher.ts),
 * recording an attempt the stopped process had on the wire before it retries.
 *
 * A process that stalls longer than PRESUMED_STOPPED_MS (a debugger, a stopped VM) is taken for
 * stopped too; when it comes back it no longer owns those deliveries, but an attempt it was
 * making may still reach the receiver once more (Shipmock-Delivery-Id lets receivers de-duplicate).
 *
 * @example const stop = startDeliveryTakeover({ shared, system: () => store.system, records, adopt: dispatcher.adopt, logger });
 */
export function startDeliveryTakeover(deps: {
  shared: SharedBatches;
  system: () => Scope;
  records: () => DeliveryRecords;
  adopt: (deliveries: Delivery[]) => void;
  logger: Logger;
  now?: () => number;
}): () => void {
  const me = deps.shared.processNumber;
  const now = deps.now ?? Date.now;
  let running = false;

  function beat(): void {
    if (running) return;
    running = true;
    let claimed: Delivery[] = [];
    let stopped = new Set<number>();
    deps.shared
      .run(() => {
        claimed = [];
        stopped = new Set();
        const values = deps.system().values;
        const at = now();
        values.set(heartbeatKey(me), at);
        const records = deps.records();
        for (const delivery of records.values()) {
          if (isFinished(delivery.status) || delivery.owner === undefined || delivery.owner === me) continue;
          const last = values.get(heartbeatKey(delivery.owner));
          if (typeof last === 'number' && at - last < PRESUMED_STOPPED_MS) continue;
          // Claimed in this batch: the commit makes it ours before anything is sent.
          stopped.add(delivery.owner);
          delivery.owner = me;
          records.update(delivery);
          claimed.push(delivery);
        }
      })
      .then(
        () => {
          if (!claimed.length) return;
          deps.logger.info({ deliveries: claimed.length, stoppedProcesses: [...stopped] }, 'webhook deliveries of a stopped process adopted');
          deps.adopt(claimed);
        },
        (error: Error) => deps.logger.warn({ err: error }, 'heartbeat not written: the shared store is unreachable'),
      )
      .finally(() => {
        running = false;
      });
  }

  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref();
  beat();
  return () => clearInterval(timer);
}
