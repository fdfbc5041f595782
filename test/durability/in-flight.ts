import type { Store } from '../../src/store/store.js';

/**
 * A promise watched without awaiting it: whether it has settled yet (a unit waiting for a lock
 * has not), and its result for later. A rejection is not unhandled while nobody awaits it.
 */
export function inFlight<T>(promise: Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let settled = false;
  const result = promise.finally(() => {
    settled = true;
  });
  result.catch(() => {});
  return { settled: () => settled, result };
}

/**
 * A read of `account` that writes after all (its thing `t1` set to n 1), in flight: a shared
 * store runs its work without a lock and takes one only for its commit. `ran()`: whether the
 * work has run.
 */
export function aReadThatWrites(store: Pick<Store, 'transaction' | 'account'>, account: string): ReturnType<typeof inFlight<void>> & { ran: () => boolean } {
  let ran = false;
  const read = inFlight(
    store.transaction(
      () => {
        ran = true;
        store.account(account).collection<{ id: string; n: number }>('things').update({ id: 't1', n: 1 });
      },
      'request',
      { account, read: true },
    ),
  );
  return { ...read, ran: () => ran };
}
