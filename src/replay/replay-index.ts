import { requestKey, type KeyedRequest } from '../record/exchange-key.js';
import type { RecordedExchange } from '../record/recorded-exchange.js';

/**
 * The recorded answers by matching key (src/record/exchange-key.ts), each key's answers in the
 * order they were recorded: the first identical request gets the first answer, the second the
 * second. A lookup is one hash of the request and one Map read, whatever the recording's size.
 */
export interface ReplayIndex {
  /** The answers recorded for this request, oldest first; undefined when none was. */
  lookup(request: KeyedRequest): { key: string; answers: readonly RecordedExchange[] } | undefined;
  /** Adds an exchange after the answers already recorded for its key; returns its position. */
  add(exchange: RecordedExchange): number;
  /** How many exchanges the index holds. */
  readonly size: number;
}

export function createReplayIndex(exchanges: Iterable<RecordedExchange> = []): ReplayIndex {
  const byKey = new Map<string, RecordedExchange[]>();
  let size = 0;
  const add = (exchange: RecordedExchange): number => {
    const key = requestKey(exchange.request);
    let answers = byKey.get(key);
    if (!answers) byKey.set(key, (answers = []));
    answers.push(exchange);
    size++;
    return answers.length - 1;
  };
  for (const exchange of exchanges) add(exchange);
  return {
    lookup(request) {
      const key = requestKey(request);
      const answers = byKey.get(key);
      return answers ? { key, answers } : undefined;
    },
    add,
    get size() {
      return size;
    },
  };
}
