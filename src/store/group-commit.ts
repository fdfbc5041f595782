/**
 * Group commit: the units of work that end in one turn of the event loop are committed together,
 * by ONE call of `commit` on the next `setImmediate` (after every request ready in this turn has
 * been handled). Fifty concurrent POSTs cost one commit instead of fifty. Every unit that joined
 * gets the commit's outcome.
 * @example const group = createGroupCommit(() => store.commit()); await group.join();
 */
export function createGroupCommit(commit: () => void) {
  let group: { done: Promise<void>; settle(error?: unknown): void } | undefined;
  return {
    /** Whether a commit is due on the next setImmediate (a background commit can leave it the work). */
    get pending(): boolean {
      return group !== undefined;
    },
    /** Joins the commit of this turn; resolves once it is done, rejects with its error. */
    join(): Promise<void> {
      if (group) return group.done;
      let settle!: (error?: unknown) => void;
      const done = new Promise<void>((resolve, reject) => {
        settle = (error) => (error === undefined ? resolve() : reject(error));
      });
      group = { done, settle };
      setImmediate(() => {
        const ending = group!;
        group = undefined;
        try {
          commit();
        } catch (error) {
          return ending.settle(error);
        }
        ending.settle();
      });
      return done;
    },
  };
}
