import type { MockRuntime } from '../../app/runtime.js';
import { ruleViolation } from '../../errors/problem.js';
import { EVENT_CHANNEL_SECRETS, EVENT_CHANNELS, type ChannelSecret } from '../../events/channel-source.js';
import { createAccountResources } from '../shared/account-resources.js';
import type { EventChannel, EventChannelInput } from './model.js';

/**
 * Headers the mock sets itself on every delivery; a channel cannot override them
 * (contract/DECISIONS.md, "Webhook extra headers"). `Shipmock-*` is reserved as a prefix.
 */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'user-agent', 'connection', 'transfer-encoding']);
/** Header values go on the wire verbatim: control characters would break (or split) the request. */
const SAFE_HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function checkWebhookHeaders(headers: Record<string, string> | undefined): void {
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower) || lower.startsWith('shipmock-')) {
      throw ruleViolation(`body/webhook/headers/${name}`, `${name} is set by the mock on every delivery and cannot be overridden`);
    }
    if (!SAFE_HEADER_VALUE.test(value)) {
      throw ruleViolation(`body/webhook/headers/${name}`, 'must not contain control characters');
    }
  }
}

/**
 * Event Channels: account-scoped CRUD (events on topic EVENT_CHANNEL) whose webhook secret is
 * kept in a separate collection, so neither a read nor an EVENT_CHANNEL event payload can leak
 * it. Deleting a channel cancels what is still queued for it (runtime.webhooks).
 *
 * @example
 * const channels = createEventChannelService(runtime);
 * channels.create(accountId, { name: 'Bookings', topics: ['SHIPMENT_BOOKING'], webhook: { url } });
 */
export function createEventChannelService(runtime: MockRuntime) {
  const secrets = (accountId: string) => runtime.store.account(accountId).collection<ChannelSecret>(EVENT_CHANNEL_SECRETS);
  const base = createAccountResources<EventChannelInput, EventChannel>(runtime, {
    collection: EVENT_CHANNELS,
    topic: 'EVENT_CHANNEL',
    label: 'Event Channel',
    check: (_accountId, input) => checkWebhookHeaders(input.webhook.headers),
    build: (input, meta) => ({
      ...meta,
      name: input.name,
      topics: input.topics,
      webhook: { url: input.webhook.url, headers: input.webhook.headers, signed: input.webhook.secret !== undefined },
      enabled: input.enabled ?? true,
    }),
  });

  // The first delivery attempt runs asynchronously (a microtask later), so a secret stored right
  // after create/replace is always in place before anything is signed with it.
  function storeSecret(accountId: string, channelId: string, secret: string | undefined): void {
    const collection = secrets(accountId);
    collection.delete(channelId);
    if (secret !== undefined) collection.insert({ id: channelId, secret });
  }

  return {
    ...base,
    create(accountId: string, input: EventChannelInput): EventChannel {
      const channel = base.create(accountId, input);
      storeSecret(accountId, channel.id, input.webhook.secret);
      return channel;
    },
    /** Full replacement: an omitted secret removes signing (contract/DECISIONS.md). */
    replace(accountId: string, id: string, input: EventChannelInput): EventChannel {
      const channel = base.replace(accountId, id, input);
      storeSecret(accountId, id, input.webhook.secret);
      return channel;
    },
    remove(accountId: string, id: string): EventChannel {
      const channel = base.remove(accountId, id);
      secrets(accountId).delete(id);
      runtime.webhooks.cancelChannel(id);
      return channel;
    },
  };
}

export type EventChannelService = ReturnType<typeof createEventChannelService>;
