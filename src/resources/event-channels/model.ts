import type { components } from '../../client/schema.js';

/** Contract types (src/client/schema.ts, generated from contract/openapi.yaml); below them what only the mock stores. */
type Schemas = components['schemas'];


/** Event Channel (spec: "name, topics, webhook"): the contract's types; nothing is stored beyond them. */
export type WebhookInput = Schemas['Webhook'];
export type EventChannelInput = Schemas['EventChannelRequest'];
/** As stored and as returned: the webhook shows `signed` instead of the secret, `headerNames` instead of the headers. */
export type EventChannel = Schemas['EventChannel'];

/** Spec: "With a Company token only the topics CARRIER, SERVICE, CARRIER_MONITOR and ACCOUNT are allowed". */
export const COMPANY_MOCK_EVENT_TOPICS: readonly Schemas['EventTopic'][] = ['CARRIER', 'SERVICE', 'CARRIER_MONITOR', 'ACCOUNT'];

export type MockEventInput = components['schemas']['MockEventRequest'];
