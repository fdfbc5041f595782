/**
 * Spec, Events: "An overview example names the topic SHIPMENT_BOOKING_EVENT while the topic list
 * names it SHIPMENT_BOOKING". The list is normative (the contract's EventTopic enum); the alias
 * is accepted on input and rewritten before validation, so stored channels, events and
 * deliveries only ever say SHIPMENT_BOOKING (contract/DECISIONS.md).
 */
export const TOPIC_ALIASES: Readonly<Record<string, string>> = { SHIPMENT_BOOKING_EVENT: 'SHIPMENT_BOOKING' };

const canonical = (topic: unknown) => (typeof topic === 'string' ? TOPIC_ALIASES[topic] ?? topic : topic);

/** An alias listed next to its own canonical topic is dropped, not reported as a duplicate. */
function withoutRedundantAliases(topics: unknown[]): unknown[] {
  return topics.filter((topic) => !(typeof topic === 'string' && topic in TOPIC_ALIASES && topics.includes(TOPIC_ALIASES[topic])));
}

/**
 * The request step's pre-validation hook for the Event operations: channel `topics` (an alias next to
 * its canonical topic is dropped), the mock event `topic`, and the list filter `?topic=`. Anything else is
 * returned untouched, also malformed input, which validation then reports as usual.
 *
 * @example normalizeTopicAliases('createMockEvent', 'body', { topic: 'SHIPMENT_BOOKING_EVENT' }) // { topic: 'SHIPMENT_BOOKING' }
 */
export function normalizeTopicAliases(operationId: string, part: 'query' | 'body', value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const input = value as Record<string, unknown>;
  switch (`${operationId} ${part}`) {
    case 'createEventChannel body':
    case 'replaceEventChannel body':
      return Array.isArray(input.topics) ? { ...input, topics: withoutRedundantAliases(input.topics).map(canonical) } : value;
    case 'createMockEvent body':
    case 'listEventChannels query':
      return 'topic' in input ? { ...input, topic: canonical(input.topic) } : value;
    default:
      return value;
  }
}
