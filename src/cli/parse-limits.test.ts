import { describe, expect, it } from 'vitest';
import { parseDuration, parseRateLimit, parseTokenTtls } from './parse-limits.js';

describe('parse-limits', () => {
  it.each([
    ['250ms', 250],
    ['60s', 60_000],
    ['15m', 900_000],
    ['4h', 14_400_000],
    ['1.5h', 5_400_000],
  ])('parses the duration %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '60', '60x', '-5s', '0s', 's'])('refuses the duration %j', (text) => expect(() => parseDuration(text)).toThrow());

  it('parses a rate limit', () => {
    expect(parseRateLimit('600/60s')).toEqual({ limit: 600, windowMs: 60_000 });
    expect(parseRateLimit('5/1h')).toEqual({ limit: 5, windowMs: 3_600_000 });
  });

  it.each(['600', '/60s', '0/60s', '1.5/60s', 'ten/60s', '600/60'])('refuses the rate limit %j', (text) =>
    expect(() => parseRateLimit(text)).toThrow(),
  );

  it('parses token lifetimes per level', () => {
    expect(parseTokenTtls(['affiliate=4h', 'ACCOUNT=30m'])).toEqual({ affiliate: 14_400_000, account: 1_800_000 });
  });

  it.each(['affiliate', 'root=4h', 'company=soon'])('refuses the token lifetime %j', (text) => expect(() => parseTokenTtls([text])).toThrow());
});
