// The control plane's answers as contract/admin.yaml declares them (generated into
// admin-schema.ts by `npm run generate:admin-types`; a test keeps it current).
import type { components } from './admin-schema';

type Schemas = components['schemas'];

export type JournalEntry = Schemas['JournalEntry'];
export type JournalBatch = Schemas['JournalBatch'];
export type JournalEntryWithExchange = Schemas['JournalEntryWithExchange'];
export type Violation = Schemas['Violation'];
export type Problem = Schemas['Problem'];
export type StateOverview = Schemas['StateOverview'];
export type StoredObjectPage = Schemas['StoredObjectPage'];
export type Delivery = Schemas['Delivery'];
export type DeliveryWithEvent = Schemas['DeliveryWithEvent'];
export type DeliveryPage = Schemas['DeliveryPage'];
export type DeliveryStatus = Schemas['DeliveryStatus'];
export type ScenarioActivation = Schemas['ScenarioActivation'];
export type ScenarioList = Schemas['ScenarioList'];
export type ClockView = Schemas['Clock'];
export type DueList = Schemas['DueList'];
export type UsageOverview = Schemas['UsageOverview'];
export type UsageLine = Schemas['UsageLine'];
export type EventEnvelope = Schemas['Event'];
export type AccountSummary = StateOverview['companies'][number]['accounts'][number];
export type DriftPage = Schemas['DriftPage'];
export type DriftRecord = Schemas['DriftRecord'];
