import type { Clock } from '../clock/clock.js';
import type { Random } from '../random/random.js';

/**
 * The internal event bus. Every state change publishes one event here (through the service
 * that made the change); event channels and webhook delivery subscribe to it.
 * The envelope follows the spec (topic, accountId, createdAt, payload) plus an id and a type.
 */
export interface EventEnvelope {
  id: string;
  topic: string;
  type: string;
  accountId?: string;
  companyId?: string;
  createdAt: string;
  payload: Record<string, unknown>;
}

export type EventInput = Omit<EventEnvelope, 'id' | 'createdAt'>;
export type EventListener = (event: EventEnvelope) => void;

export interface EventBus {
  publish(input: EventInput): EventEnvelope;
  /** Returns an unsubscribe function. Listeners run synchronously and must not throw. */
  subscribe(listener: EventListener): () => void;
}

/** @example events.publish({ topic: 'ADDRESS', type: 'CREATED', accountId, payload: address }) */
export function createEventBus(deps: { clock: Clock; random: Random; onListenerError?: (error: unknown) => void }): EventBus {
  const listeners = new Set<EventListener>();
  return {
    publish(input) {
      const event: EventEnvelope = { id: deps.random.uuid(), createdAt: deps.clock.nowIso(), ...input };
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          // A broken subscriber must not undo the state change that already happened.
          deps.onListenerError?.(error);
        }
      }
      return event;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
