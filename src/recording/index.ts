/**
 * Recordings: exchanges (a request and its answer) in and out of HAR 1.2, and the scenario a
 * recording becomes. `shipmock scenario from-har`, POST /__admin/scenarios with a HAR,
 * GET /__admin/journal.har and `shipmock record` / `serve --replay` are built on these.
 */
export { redactExchange, headerOf, type ContractVerdict, type Exchange, type ExchangeMessage, type ExchangeRequest, type ExchangeResponse } from './exchange.js';
export { exchangesToScenario, recordedRespond, RecordingError, type AfterLast, type ToScenarioOptions } from './to-scenario.js';
export { exchangeToHarEntry, harDocumentParts, harToExchanges, HarError, HAR_CREATOR, isHar, MAX_HAR_ENTRIES, type ShipmockEntryFields, type SkippedEntry } from './har.js';
export { harToScenario, type HarToScenarioOptions } from './har-to-scenario.js';
export { journalExchange } from './journal-exchange.js';
