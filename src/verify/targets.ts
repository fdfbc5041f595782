import type { Capability, TargetControl } from './provider-states.js';
import type { StateAccount } from './public-api-steps.js';

/** The control API path prefix and its key header (src/admin). */
const ADMIN = '/__admin';
const ADMIN_KEY_HEADER = 'X-Admin-Key';

/**
 * shipmock as the target: besides its public API, provider states use its control API
 * (README section "qa") — POST /__admin/clock/advance for token expiry and tracker progress,
 * the ready `rate-limit-burst` scenario scoped to the state's account for a real 429 —
 * so every interaction can be verified. Works for an in-process mock and for `shipmock serve`
 * (the control API answers loopback callers, or anyone with the admin key).
 *
 * @example
 * const mock = await startMock({ port: 0 });
 * await verifyProvider({ baseUrl: mock.url, access: mock.credentials, control: shipmockControl(mock.url) });
 */
export function shipmockControl(baseUrl: string, options: { adminKey?: string; fetch?: typeof fetch } = {}): TargetControl {
  const send = options.fetch ?? fetch;
  const base = baseUrl.replace(/\/+$/, '');

  async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.adminKey) headers[ADMIN_KEY_HEADER] = options.adminKey;
    const response = await send(`${base}${ADMIN}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`control API ${method} ${ADMIN}${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  }

  return {
    kind: 'shipmock',
    capabilities: new Set<Capability>(['clock', 'rate-limit', 'webhooks']),
    async advanceClock(ms) {
      await admin('POST', '/clock/advance', { ms });
    },
    async exhaustRateLimit(account: StateAccount) {
      await admin('POST', '/scenarios', { name: 'rate-limit-burst', accountId: account.accountId, params: { limit: 1, window: 'PT60S' } });
      // The window allows one request: this one, so the interaction's request is the 429.
      await account.api.GET('/v1/addresses', { params: { query: { limit: 1 } } });
      return async () => {
        await admin('DELETE', `/scenarios/rate-limit-burst?account_id=${encodeURIComponent(account.accountId)}`);
      };
    },
    async today() {
      const clock = (await admin('GET', '/clock')) as { now: string };
      return clock.now.slice(0, 10);
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
