import type { ChannelSource, DeliveryTarget } from '../../events/channel-source.js';
import type { EventEnvelope } from '../../events/event-bus.js';
import type { Entity } from '../../store/collection.js';
import type { Store } from '../../store/store.js';
import { companyAccountIds } from '../accounts/service.js';

/** Collection names in the account scope: the Event Channel service writes them, delivery reads them here. */
export const EVENT_CHANNELS = 'event-channels';
/**
 * Webhook secrets and extra-header values (write-only) live apart from the channels, so no read
 * path and no EVENT_CHANNEL event payload can leak them.
 */
export const EVENT_CHANNEL_SECRETS = 'event-channel-secrets';

/** What delivery needs to know of an Event Channel (the stored EventChannel has more). */
export interface SubscribedChannel extends Entity {
  topics: string[];
  enabled: boolean;
  /** `headers` only in channels stored by an older shipmock (imported state); now kept in ChannelSecret. */
  webhook: { url: string; headers?: Record<string, string> };
}

export interface ChannelSecret extends Entity {
  secret?: string;
  headers?: Record<string, string>;
  /**
   * The origin of the web page (one --cors-origin does not vouch for) whose request created or
   * last replaced the channel: its deliveries may not reach private addresses (src/events/webhook-target.ts).
   */
  foreignPage?: string;
}

/**
 * Reads Event Channels straight from the store, so delivery always uses a channel's current
 * URL, headers and secret (a replaced URL fixes a failing receiver for the next retry).
 * An event with an accountId goes to that account's channels; a company-wide event (mock event
 * made with a Company token: companyId, no accountId) to the channels of every account of the
 * company.
 */
export function createChannelSource(store: Store): ChannelSource {
  const channels = (accountId: string) => store.account(accountId).collection<SubscribedChannel>(EVENT_CHANNELS);
  const secretsOf = (accountId: string, channelId: string) =>
    store.account(accountId).collection<ChannelSecret>(EVENT_CHANNEL_SECRETS).get(channelId);
  const toTarget = (accountId: string, channel: SubscribedChannel): DeliveryTarget => {
    const secrets = secretsOf(accountId, channel.id);
    return {
      accountId,
      channelId: channel.id,
      url: channel.webhook.url,
      headers: { ...(secrets?.headers ?? channel.webhook.headers) },
      secret: secrets?.secret,
      foreignPage: secrets?.foreignPage,
    };
  };

  function accountsOf(event: EventEnvelope): string[] {
    if (event.accountId) return [event.accountId];
    if (!event.companyId) return [];
    return companyAccountIds(store, event.companyId);
  }

  return {
    subscribersOf(event) {
      const out: DeliveryTarget[] = [];
      for (const accountId of accountsOf(event)) {
        // A deleted account's scope is gone; reading it would only create an empty one again.
        if (!store.hasAccount(accountId)) continue;
        for (const channel of channels(accountId).values()) {
          if (channel.enabled && channel.topics.includes(event.topic)) out.push(toTarget(accountId, channel));
        }
      }
      return out;
    },
    target(accountId, channelId) {
      if (!store.hasAccount(accountId)) return undefined;
      const channel = channels(accountId).get(channelId);
      return channel && toTarget(accountId, channel);
    },
  };
}
