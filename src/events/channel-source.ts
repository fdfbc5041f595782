import type { EventEnvelope } from './event-bus.js';

/**
 * Where webhook delivery gets the channels of an event from. The Event Channels family
 * implements it over its own collections (src/resources/event-channels/subscribed-channels.ts); the
 * dispatcher only asks.
 */

/** A channel as delivery sees it at one moment: where to post, with what, signed with what. */
export interface DeliveryTarget {
  accountId: string;
  channelId: string;
  url: string;
  headers: Record<string, string>;
  secret?: string;
  /** The origin of the foreign web page whose request made the channel (webhook-target.ts, TargetGuards). */
  foreignPage?: string;
}

export interface ChannelSource {
  /** Enabled channels that subscribe to the event's topic, in creation order. */
  subscribersOf(event: EventEnvelope): DeliveryTarget[];
  /** The channel's current settings, or undefined once it is deleted (or its account is gone). */
  target(accountId: string, channelId: string): DeliveryTarget | undefined;
}

