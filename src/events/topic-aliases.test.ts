import { describe, expect, it } from 'vitest';
import { normalizeTopicAliases } from './topic-aliases.js';

describe('normalizeTopicAliases', () => {
  it.each([
    ['createEventChannel', 'body', { topics: ['SHIPMENT_BOOKING_EVENT', 'TRACKER'] }, { topics: ['SHIPMENT_BOOKING', 'TRACKER'] }],
    ['replaceEventChannel', 'body', { topics: ['SHIPMENT_BOOKING', 'SHIPMENT_BOOKING_EVENT'] }, { topics: ['SHIPMENT_BOOKING'] }],
    // a true duplicate stays, so validation still reports it
    ['createEventChannel', 'body', { topics: ['ADDRESS', 'ADDRESS'] }, { topics: ['ADDRESS', 'ADDRESS'] }],
    ['createEventChannel', 'body', { topics: ['SHIPMENT_BOOKING_EVENT', 'SHIPMENT_BOOKING_EVENT'] }, { topics: ['SHIPMENT_BOOKING', 'SHIPMENT_BOOKING'] }],
    ['createMockEvent', 'body', { topic: 'SHIPMENT_BOOKING_EVENT', type: 'CREATED' }, { topic: 'SHIPMENT_BOOKING', type: 'CREATED' }],
    ['listEventChannels', 'query', { topic: 'SHIPMENT_BOOKING_EVENT', limit: '5' }, { topic: 'SHIPMENT_BOOKING', limit: '5' }],
    ['createAddress', 'body', { topic: 'SHIPMENT_BOOKING_EVENT' }, { topic: 'SHIPMENT_BOOKING_EVENT' }],
    ['createMockEvent', 'body', { topic: 42 }, { topic: 42 }],
    ['createEventChannel', 'body', { topics: 'SHIPMENT_BOOKING_EVENT' }, { topics: 'SHIPMENT_BOOKING_EVENT' }],
    ['createEventChannel', 'body', null, null],
    ['createEventChannel', 'body', ['x'], ['x']],
  ] as const)('%s %s %j → %j', (operationId, part, input, output) => {
    expect(normalizeTopicAliases(operationId, part, input)).toEqual(output);
  });
});
