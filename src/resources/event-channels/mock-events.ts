import type { DomainDeps } from '../shared/domain-deps.js';
import type { Principal } from '../../auth/principal.js';
import { ProblemError } from '../../errors/problem.js';
import type { EventEnvelope } from '../../events/event-bus.js';
import { COMPANY_MOCK_EVENT_TOPICS, type MockEventInput } from './model.js';

/**
 * Mock events (spec: "Create Mock Event takes topic, type and payload and returns the mock
 * event"): published on the bus like any real event, so channels receive them the same way.
 * Account token: the event belongs to that account. Company token: only the company-level
 * topics; the event carries companyId and no accountId and reaches every account's channels.
 *
 * @example createMockEventService(core).emit(principal, { topic: 'ADDRESS', type: 'CREATED', payload: {} })
 */
export function createMockEventService(core: Pick<DomainDeps, 'events'>) {
  return {
    emit(principal: Principal, input: MockEventInput): EventEnvelope {
      if (principal.level === 'ACCOUNT' && principal.accountId) {
        return core.events.publishMock({ ...input, accountId: principal.accountId, companyId: principal.companyId });
      }
      if (principal.level === 'COMPANY' && principal.companyId) {
        if (!COMPANY_MOCK_EVENT_TOPICS.includes(input.topic)) {
          const message = `With a Company token the topic must be one of ${COMPANY_MOCK_EVENT_TOPICS.join(', ')}; use an Account token for ${input.topic}`;
          throw new ProblemError('topic-not-allowed', { detail: message, violations: [{ field: 'body/topic', message }] });
        }
        return core.events.publishMock({ ...input, companyId: principal.companyId });
      }
      throw new ProblemError('forbidden', { detail: 'Mock events need an Account or a Company token' });
    },
  };
}

export type MockEventService = ReturnType<typeof createMockEventService>;
