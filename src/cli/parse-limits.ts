import { parseDuration } from '../clock/duration.js';
import type { MockOptions } from '../config/options.js';
import { UNLIMITED } from '../rate-limit/rate-limiter.js';

type TokenLevelName = keyof NonNullable<MockOptions['tokenLifetimes']>;
const LEVELS: TokenLevelName[] = ['company', 'account', 'affiliate', 'admin'];

/**
 * A duration flag value (src/clock/duration.ts: 90s, 15m, 4h or ISO 8601), longer than zero.
 * @example parsePositiveDuration('15m') // 900000
 */
export function parsePositiveDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms <= 0) throw new Error(`"${text}" must be longer than zero`);
  return ms;
}

const UNIT_BYTES: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/**
 * A size flag value: a positive whole number of bytes, or a number with a unit kb|mb|gb (powers
 * of 1024); at most 1 GiB, since a body is held in memory whole.
 * @example parseByteSize('32mb') // 33554432
 */
export function parseByteSize(text: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(text.trim());
  const bytes = match ? Math.floor(Number(match[1]) * UNIT_BYTES[(match[2] ?? 'b').toLowerCase()]) : NaN;
  if (!(bytes >= 1 && bytes <= UNIT_BYTES.gb)) throw new Error(`${flag} "${text}" must be a size from 1 byte to 1gb, e.g. 512kb or 32mb`);
  return bytes;
}

/**
 * `--rate-limit N/<duration>`: N requests per window per credential; `off` for load tests.
 * @example parseRateLimit('600/60s') // { limit: 600, windowMs: 60000 }
 * @example parseRateLimit('off') // { limit: 2147483647, windowMs: 60000 }
 */
export function parseRateLimit(text: string, flag = '--rate-limit'): { limit: number; windowMs: number } {
  if (text.trim().toLowerCase() === 'off' && flag !== '--login-lockout') return { limit: UNLIMITED, windowMs: 60_000 };
  const slash = text.indexOf('/');
  const limit = Number(text.slice(0, slash));
  if (slash === -1 || !Number.isInteger(limit) || limit < 1 || limit > 2_147_483_647) {
    throw new Error(`${flag} "${text}" must look like 600/60s (a positive whole number of requests per duration)${flag === '--login-lockout' ? '' : ' or be off'}`);
  }
  return { limit, windowMs: parsePositiveDuration(text.slice(slash + 1)) };
}

/**
 * `--login-lockout N/<duration>`: N wrong client secrets per client id and address per window.
 * @example parseLoginLockout('10/15m') // { failures: 10, windowMs: 900000 }
 */
export function parseLoginLockout(text: string): { failures: number; windowMs: number } {
  const { limit, windowMs } = parseRateLimit(text, '--login-lockout');
  return { failures: limit, windowMs };
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
    out[level] = parsePositiveDuration(value.slice(eq + 1));
  }
  return out;
}
