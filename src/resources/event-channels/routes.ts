import type { HandlerMap, ParamsIn } from '../shared/operation-handler.js';
import { crudRoutes } from '../shared/crud-routes.js';
import type { MockEventService } from './mock-events.js';
import type { EventChannel } from './model.js';
import type { EventChannelService } from './service.js';

function listFilter(query: ParamsIn<'listEventChannels', 'query'>): ((channel: EventChannel) => boolean) | undefined {
  const { topic, enabled } = query;
  if (topic === undefined && enabled === undefined) return undefined;
  return (c) => (topic === undefined || c.topics.includes(topic)) && (enabled === undefined || c.enabled === enabled);
}

export function eventChannelRoutes(channels: EventChannelService, mockEvents: MockEventService): HandlerMap {
  return {
    ...crudRoutes(
      channels,
      { create: 'createEventChannel', list: 'listEventChannels', get: 'getEventChannel', replace: 'replaceEventChannel', remove: 'deleteEventChannel' },
      { idParam: 'event-channel-id', filter: listFilter },
    ),
    createMockEvent: (ctx) => ({ status: 201, body: mockEvents.emit(ctx.principal, ctx.body) }),
  };
}
