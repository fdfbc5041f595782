import type { DomainDeps, ResourceDeps } from '../shared/domain-deps.js';
import { ruleViolation } from '../../errors/problem.js';
import { EVENT_CHANNEL_SECRETS, EVENT_CHANNELS, type ChannelSecret } from './subscribed-channels.js';
import type { HostAllowlist } from '../../events/host-allowlist.js';
import { SAFE_HEADER_VALUE, webhookTargetProblem, type TargetGuards } from '../../events/webhook-target.js';
import type { Page, PageRequest } from '../../store/collection.js';
import { createAccountResources } from '../shared/account-resources.js';
import { compact } from '../../util/compact.js';
import type { EventChannel, EventChannelInput } from './model.js';

/**
 * Headers the mock sets itself on every delivery; a channel cannot override them
 * (contract/DECISIONS.md, "Webhook extra headers"). `Shipmock-*` is reserved as a prefix.
 */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'user-agent', 'connection', 'transfer-encoding']);

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
 * The contract's `webhook-url` format does the structural check (400 validation-error); what a
 * pattern cannot judge (an IPv6 literal) is parsed here as delivery will parse it, the host is
 * held to --webhook-hosts when that is set, a target that is the mock itself (any spelling of
 * this machine on the mock's port) is refused, and so is a private one a foreign page asks for.
 */
function checkWebhookUrl(url: string, allowlist: HostAllowlist, guards: TargetGuards): void {
  const problem = webhookTargetProblem(url, {}, allowlist, guards);
  if (problem) throw ruleViolation('body/webhook/url', `body/webhook/url: ${problem.error}`);
}

/** Who asked for a create or replace, as far as the webhook checks care (the route passes it). */
export interface ChannelRequester {
  /** The origin of a web page --cors-origin does not vouch for, when one sent the request. */
  foreignPage?: string;
}

/** A channel as reads show it; one stored by an older shipmock still had its header values inline. */
function view(channel: EventChannel): EventChannel {
  const legacy = (channel.webhook as { headers?: Record<string, string> }).headers;
  if (!legacy) return channel;
  const { headers: _values, ...webhook } = channel.webhook as EventChannel['webhook'] & { headers?: Record<string, string> };
  const headerNames = Object.keys(legacy);
  return { ...channel, webhook: headerNames.length ? { ...webhook, headerNames } : webhook };
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
export function createEventChannelService(core: ResourceDeps & Pick<DomainDeps, 'webhooks'>) {
  const secrets = (accountId: string) => core.store.account(accountId).collection<ChannelSecret>(EVENT_CHANNEL_SECRETS);
  const { allowlist, endpoints } = core.webhooks;
  const base = createAccountResources<EventChannelInput, EventChannel>(core, {
    collection: EVENT_CHANNELS,
    topic: 'EVENT_CHANNEL',
    label: 'Event Channel',
    // The URL is checked by create and replace below, which know who asks.
    check: (_accountId, input) => checkWebhookHeaders(input.webhook.headers),
    build: (input, meta) => ({
      ...meta,
      name: input.name,
      topics: input.topics,
      webhook: {
        url: input.webhook.url,
        headerNames: input.webhook.headers && Object.keys(input.webhook.headers).length ? Object.keys(input.webhook.headers) : undefined,
        signed: input.webhook.secret !== undefined,
      },
      enabled: input.enabled ?? true,
    }),
  });

  // The first delivery attempt runs asynchronously (a microtask later), so a secret (and header
  // values) stored right after create/replace are always in place before anything is sent.
  function storeSecrets(accountId: string, channelId: string, webhook: EventChannelInput['webhook'], foreignPage: string | undefined): void {
    const collection = secrets(accountId);
    collection.delete(channelId);
    const { secret, headers } = webhook;
    if (secret !== undefined || headers !== undefined || foreignPage !== undefined) collection.insert(compact({ id: channelId, secret, headers, foreignPage }));
  }

  return {
    ...base,
    get: (accountId: string, id: string): EventChannel => view(base.get(accountId, id)),
    find(accountId: string, id: string): EventChannel | undefined {
      const found = base.find(accountId, id);
      return found && view(found);
    },
    list(accountId: string, page: PageRequest<EventChannel>): Page<EventChannel> {
      const found = base.list(accountId, page);
      return { ...found, items: found.items.map(view) };
    },
    all: (accountId: string): EventChannel[] => base.all(accountId).map(view),
    slice: (accountId: string, start: number, end: number): EventChannel[] => base.slice(accountId, start, end).map(view),
    create(accountId: string, input: EventChannelInput, requester: ChannelRequester = {}): EventChannel {
      checkWebhookUrl(input.webhook.url, allowlist, { self: endpoints, foreignPage: requester.foreignPage });
      const channel = base.create(accountId, input);
      storeSecrets(accountId, channel.id, input.webhook, requester.foreignPage);
      return channel;
    },
    /** Full replacement: an omitted secret removes signing, omitted headers remove them (contract/DECISIONS.md). */
    replace(accountId: string, id: string, input: EventChannelInput, requester: ChannelRequester = {}): EventChannel {
      base.get(accountId, id);
      checkWebhookUrl(input.webhook.url, allowlist, { self: endpoints, foreignPage: requester.foreignPage });
      const channel = base.replace(accountId, id, input);
      storeSecrets(accountId, id, input.webhook, requester.foreignPage);
      return channel;
    },
    remove(accountId: string, id: string): EventChannel {
      const channel = base.remove(accountId, id);
      secrets(accountId).delete(id);
      core.webhooks.cancelChannel(id);
      return view(channel);
    },
  };
}

export type EventChannelService = ReturnType<typeof createEventChannelService>;
