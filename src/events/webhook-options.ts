/**
 * Tuning of webhook delivery. The defaults are the documented behaviour (README section
 * `events`, contract/DECISIONS.md "Webhook delivery"); tests shorten the timeout.
 */
export interface WebhookOptions {
  /** Real-time limit for one attempt (connect, send, answer). Default 10 000 ms. */
  timeoutMs?: number;
  /** Attempts per delivery round, the first one included. Default 6. */
  maxAttempts?: number;
  /** Backoff before the second attempt; doubles for each later one. Default 1 000 ms. */
  retryBaseMs?: number;
  /** Jitter as a fraction of each backoff, drawn from the seeded random (±). Default 0.2. */
  jitter?: number;
  /** Deliveries kept in the log per channel. Default 1 000. */
  logCapPerChannel?: number;
  /** Deliveries kept in the log in all. Default 10 000. */
  logCapTotal?: number;
  /** Sockets open at once across all receivers. Default 64. */
  maxSockets?: number;
}

export type ResolvedWebhookOptions = Required<WebhookOptions>;

export const WEBHOOK_DEFAULTS: ResolvedWebhookOptions = {
  timeoutMs: 10_000,
  maxAttempts: 6,
  retryBaseMs: 1_000,
  jitter: 0.2,
  logCapPerChannel: 1_000,
  logCapTotal: 10_000,
  maxSockets: 64,
};

/** @example resolveWebhookOptions({ timeoutMs: 200 }).maxAttempts // 6 */
export function resolveWebhookOptions(options: WebhookOptions = {}): ResolvedWebhookOptions {
  const resolved = { ...WEBHOOK_DEFAULTS, ...stripUndefined(options) };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`webhooks.${key} must be a non-negative number`);
  }
  if (resolved.maxAttempts < 1) throw new RangeError('webhooks.maxAttempts must be at least 1');
  if (resolved.jitter >= 1) throw new RangeError('webhooks.jitter must be below 1');
  return resolved;
}

function stripUndefined(options: WebhookOptions): WebhookOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
