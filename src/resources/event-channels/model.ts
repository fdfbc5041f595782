/** Event Channel (spec: "name, topics, webhook"). Fields: contract EventChannelRequest / EventChannel. */
export interface WebhookInput {
  url: string;
  /** Write-only: stored apart from the channel (collection event-channel-secrets), never returned. */
  secret?: string;
  /** Write-only like the secret: values stored with it; reads show `headerNames`. */
  headers?: Record<string, string>;
}

export interface EventChannelInput {
  name: string;
  topics: string[];
  webhook: WebhookInput;
  enabled?: boolean;
}

/** As stored and as returned: the webhook shows `signed` instead of the secret, `headerNames` instead of the headers. */
export interface EventChannel {
  id: string;
  createdAt: string;
  updatedAt: string;
  name: string;
  topics: string[];
  webhook: { url: string; headerNames?: string[]; signed: boolean };
  enabled: boolean;
}

/** Spec: "With a Company token only the topics CARRIER, SERVICE, CARRIER_MONITOR and ACCOUNT are allowed". */
export const COMPANY_MOCK_EVENT_TOPICS: readonly string[] = ['CARRIER', 'SERVICE', 'CARRIER_MONITOR', 'ACCOUNT'];

export interface MockEventInput {
  topic: string;
  type: string;
  payload: Record<string, unknown>;
}
