import type { MockOptions } from '../config/options.js';

type TokenLevelName = keyof NonNullable<MockOptions['tokenLifetimes']>;
const LEVELS: TokenLevelName[] = ['company', 'account', 'affiliate', 'admin'];
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * A duration flag value: a positive number with a unit ms|s|m|h.
 * @example parseDuration('15m') // 900000
 */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration; use e.g. 90s, 15m or 4h`);
  const ms = Math.round(Number(match[1]) * UNIT_MS[match[2]]);
  if (ms <= 0) throw new Error(`"${text}" must be longer than zero`);
  return ms;
}

/**
 * `--rate-limit N/<duration>`: N requests per window per credential.
 * @example parseRateLimit('600/60s') // { limit: 600, windowMs: 60000 }
 */
export function parseRateLimit(text: string): { limit: number; windowMs: number } {
  const slash = text.indexOf('/');
  const limit = Number(text.slice(0, slash));
  if (slash === -1 || !Number.isInteger(limit) || limit < 1) {
    throw new Error(`--rate-limit "${text}" must look like 600/60s (a positive whole number of requests per duration)`);
  }
  return { limit, windowMs: parseDuration(text.slice(slash + 1)) };
}

/**
 * `--token-ttl level=duration`, repeatable: the lifetime of one token level.
 * @example parseTokenTtls(['affiliate=4h']) // { affiliate: 14400000 }
 */
export function parseTokenTtls(values: string[]): Partial<Record<TokenLevelName, number>> {
  const out: Partial<Record<TokenLevelName, number>> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    const level = value.slice(0, eq).trim().toLowerCase() as TokenLevelName;
    if (eq === -1 || !LEVELS.includes(level)) {
      throw new Error(`--token-ttl "${value}" must look like affiliate=4h (levels: ${LEVELS.join(', ')})`);
    }
    out[level] = parseDuration(value.slice(eq + 1));
  }
  return out;
}
