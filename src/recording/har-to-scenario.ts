import type { ScenarioDefinition } from '../scenarios/model.js';
import { harToExchanges, type SkippedEntry } from './har.js';
import { exchangesToScenario, type AfterLast } from './to-scenario.js';

export interface HarToScenarioOptions {
  name: string;
  description?: string;
  /** Where the HAR came from (its file name): each rule's `recorded.source`. */
  source?: string;
  /**
   * The contract operation of a request. Given, entries that are no operation of the contract
   * (the page itself, its scripts, a favicon: a browser's HAR holds them all) are skipped.
   */
  operationOf?: (method: string, path: string) => string | undefined;
  afterLast?: AfterLast;
}

/**
 * A HAR document (parsed JSON) as a recorded scenario, and the entries left out with the reason.
 * Throws HarError (naming each bad field) for a document that is not a usable HAR, and
 * RecordingError when nothing in it can be answered.
 *
 * @example const { scenario, skipped } = harToScenario(JSON.parse(text), { name: 'checkout', source: 'checkout.har', operationOf });
 */
export function harToScenario(har: unknown, options: HarToScenarioOptions): { scenario: ScenarioDefinition; skipped: SkippedEntry[]; exchanges: number } {
  const { exchanges, skipped } = harToExchanges(har);
  const kept: typeof exchanges = [];
  const entryOf: number[] = [];
  // Entry numbers of the exchanges (skipped entries left gaps).
  const skippedSet = new Set(skipped.map((s) => s.entry));
  for (let entry = 0, next = 0; next < exchanges.length; entry++) if (!skippedSet.has(entry)) entryOf[next++] = entry;
  exchanges.forEach((exchange, i) => {
    if (options.operationOf) {
      const url = new URL(exchange.request.url);
      const operationId = exchange.operationId ?? options.operationOf(exchange.request.method, url.pathname);
      if (!operationId) return void skipped.push({ entry: entryOf[i], reason: `${exchange.request.method} ${url.pathname.slice(0, 200)} is no operation of the contract` });
      kept.push({ ...exchange, operationId });
    } else kept.push(exchange);
  });
  skipped.sort((a, b) => a.entry - b.entry);
  const scenario = exchangesToScenario(kept, { name: options.name, description: options.description, source: options.source, operationOf: options.operationOf, afterLast: options.afterLast });
  return { scenario, skipped, exchanges: kept.length };
}
