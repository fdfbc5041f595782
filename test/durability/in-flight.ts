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
