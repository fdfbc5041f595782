import { createHostAllowlist } from './host-allowlist.js';

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
  /** Deliveries kept in the log per channel, dead letters not counted. Default 1 000. */
  logCapPerChannel?: number;
  /** Deliveries kept in the log in all, dead letters not counted. Default 10 000. */
  logCapTotal?: number;
  /**
   * Dead letters (FAILED deliveries) kept until redelivered or purged; past it the oldest is
   * dropped with a warning. Default 10 000.
   */
  deadLetterCap?: number;
  /**
   * Hosts webhooks may point at (`--webhook-hosts`): `host`, `*.suffix`, either with `:port`
   * (src/events/host-allowlist.ts). Unset: any host. An empty list is refused.
   */
  allowedHosts?: string[];
  /** Sockets open at once across all receivers. Default 64. */
  maxSockets?: number;
}

export type ResolvedWebhookOptions = Required<Omit<WebhookOptions, 'allowedHosts'>> & {
  /** Normalised entries; empty when any host is allowed. */
  allowedHosts: string[];
};

export const WEBHOOK_DEFAULTS: ResolvedWebhookOptions = {
  timeoutMs: 10_000,
  maxAttempts: 6,
  retryBaseMs: 1_000,
  jitter: 0.2,
  logCapPerChannel: 1_000,
  logCapTotal: 10_000,
  deadLetterCap: 10_000,
  maxSockets: 64,
  allowedHosts: [],
};

/** @example resolveWebhookOptions({ timeoutMs: 200 }).maxAttempts // 6 */
export function resolveWebhookOptions(options: WebhookOptions = {}): ResolvedWebhookOptions {
  const { allowedHosts, ...numbers } = options;
  const resolved: ResolvedWebhookOptions = { ...WEBHOOK_DEFAULTS, ...stripUndefined(numbers), allowedHosts: [] };
  for (const [key, value] of Object.entries(resolved)) {
    if (key !== 'allowedHosts' && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) {
      throw new RangeError(`webhooks.${key} must be a non-negative number`);
    }
  }
  if (allowedHosts !== undefined) {
    if (!Array.isArray(allowedHosts) || allowedHosts.length === 0) {
      throw new RangeError('webhooks.allowedHosts must list at least one host; leave it out to allow any host');
    }
    // Throws a RangeError naming a malformed entry.
    resolved.allowedHosts = [...createHostAllowlist(allowedHosts).entries];
  }
  if (resolved.maxAttempts < 1) throw new RangeError('webhooks.maxAttempts must be at least 1');
  if (resolved.jitter >= 1) throw new RangeError('webhooks.jitter must be below 1');
  return resolved;
}

function stripUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
