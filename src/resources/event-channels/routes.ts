import { created, noContent, type HandlerMap, type ParamsIn } from '../shared/operation-handler.js';
import { accountOf, crudRoutes } from '../shared/crud-routes.js';
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
    // Who asks matters to the webhook checks: a foreign web page may not point channels into private networks.
    createEventChannel: (ctx) => created(channels.create(accountOf(ctx.principal), ctx.body, { foreignPage: ctx.foreignPage }).id),
    replaceEventChannel: (ctx) => {
      channels.replace(accountOf(ctx.principal), ctx.path['event-channel-id'], ctx.body, { foreignPage: ctx.foreignPage });
      return noContent();
    },
    createMockEvent: (ctx) => ({ status: 201, body: mockEvents.emit(ctx.principal, ctx.body) }),
  };
}
