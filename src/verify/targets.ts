import type { RunningMock } from '../server/start-mock.js';
import type { Capability, TargetControl } from './provider-states.js';
import type { StateAccount } from './public-api-steps.js';

/**
 * The control a verification has over shipmock itself: its clock and rate limiter, through
 * the handle startMock() returns. Provider states that need time travel or a forced 429 work
 * only here.
 *
 * @example
 * const mock = await startMock({ port: 0 });
 * await verifyProvider({ baseUrl: mock.url, access: mock.credentials, control: shipmockControl(mock) });
 */
export function shipmockControl(mock: Pick<RunningMock, 'runtime'>): TargetControl {
  const { clock, rateLimiter } = mock.runtime;
  return {
    kind: 'shipmock',
    capabilities: new Set<Capability>(['clock', 'rate-limit', 'webhooks']),
    async advanceClock(ms) {
      clock.advance(ms);
    },
    async exhaustRateLimit(account: StateAccount) {
      const previous = { ...rateLimiter.config };
      // A window of one request: this call uses it up, so the interaction's request is the 429.
      rateLimiter.configure({ limit: 1, windowMs: 60_000 });
      await account.api.GET('/v1/addresses', { params: { query: { limit: 1 } } });
      return async () => rateLimiter.configure(previous);
    },
    async today() {
      return clock.nowIso().slice(0, 10);
    },
  };
}

/**
 * A service we do not control: public API only. Webhook-based message states work when the
 * service can reach the verifier's inbox — a local target, or one given a public inbox URL.
 * @example realTargetControl({ baseUrl: 'https://api.example.com', webhookPublicUrl: 'https://tunnel.example.com/webhooks' })
 */
export function realTargetControl(options: { baseUrl: string; webhookPublicUrl?: string }): TargetControl {
  const host = new URL(options.baseUrl).hostname;
  const local = host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host === '::1';
  return {
    kind: 'real',
    capabilities: new Set<Capability>(local || options.webhookPublicUrl ? ['webhooks'] : []),
    async today() {
      return new Date().toISOString().slice(0, 10);
    },
  };
}
