import type { PostOutcome, WebhookTransport } from '../events/webhook-post.js';
import { scenarioWebhookFault } from './domain-hooks.js';
import type { ScenarioEngine } from './engine.js';

/**
 * Webhook delivery with the scenarios' `webhook` effects applied to each attempt. The dispatcher
 * (src/events/webhook-dispatcher.ts) retries whatever is not a 2xx, so:
 * - FAIL      the attempt is not sent; it counts as the receiver answering `status` (default 503);
 * - TIMEOUT   the attempt is not sent; it counts as a timeout;
 * - ACK_LOST  the attempt IS sent and the receiver answers, but the answer is treated as lost, so
 *             the same event arrives again (a retry storm that tests the receiver's idempotency).
 * Every such attempt says so in the delivery log (`error`).
 *
 * @example createWebhookDispatcher({ …, transport: withScenarioWebhookFaults(createWebhookTransport(…), runtime.scenarios) })
 */
export function withScenarioWebhookFaults(transport: WebhookTransport, engine: ScenarioEngine): WebhookTransport {
  return {
    close: () => transport.close(),
    async post(url, headers, body): Promise<PostOutcome> {
      const fault = scenarioWebhookFault(engine, { accountId: accountOf(body) });
      if (!fault) return transport.post(url, headers, body);
      switch (fault.outcome) {
        case 'FAIL':
          return { statusCode: fault.status, error: `not sent: the receiver's failure is simulated (${fault.origin})`, latencyMs: 0 };
        case 'TIMEOUT':
          return { errorCode: 'TIMEOUT', error: `not sent: a timeout is simulated (${fault.origin})`, latencyMs: 0 };
        case 'ACK_LOST': {
          const outcome = await transport.post(url, headers, body);
          const answer = outcome.statusCode !== undefined ? `answered ${outcome.statusCode}` : `failed (${outcome.errorCode})`;
          return { errorCode: 'ACK_LOST', error: `the receiver ${answer}; the acknowledgement is treated as lost (${fault.origin})`, latencyMs: outcome.latencyMs };
        }
      }
    },
  };
}

function accountOf(body: string): string | undefined {
  try {
    const event = JSON.parse(body) as { accountId?: unknown };
    return typeof event.accountId === 'string' ? event.accountId : undefined;
  } catch {
    return undefined;
  }
}
