import { describe, expect, it } from 'vitest';
import { parseByteSize, parsePositiveDuration, parseLoginLockout, parseRateLimit, parseTokenTtls } from './parse-limits.js';

describe('parse-limits', () => {
  it.each([
    ['250ms', 250],
    ['60s', 60_000],
    ['15m', 900_000],
    ['4h', 14_400_000],
    ['1.5h', 5_400_000],
  ])('parses the duration %s', (text, ms) => expect(parsePositiveDuration(text)).toBe(ms));

  it.each(['', '60', '60x', '-5s', '0s', 's'])('refuses the duration %j', (text) => expect(() => parsePositiveDuration(text)).toThrow());

  it.each([
    ['1048576', 1_048_576],
    ['512kb', 524_288],
    ['32MB', 33_554_432],
    ['1.5mb', 1_572_864],
    ['1gb', 1_073_741_824],
  ])('parses the size %s', (text, bytes) => expect(parseByteSize(text, '--body-limit')).toBe(bytes));

  it.each(['', '0', '0kb', '-1mb', '2gb', '10tb', 'big', 'Infinity', '1e309'])('refuses the size %j, naming the flag', (text) =>
    expect(() => parseByteSize(text, '--body-limit')).toThrow(/^--body-limit /),
  );

  it('parses a rate limit', () => {
    expect(parseRateLimit('600/60s')).toEqual({ limit: 600, windowMs: 60_000 });
    expect(parseRateLimit('5/1h')).toEqual({ limit: 5, windowMs: 3_600_000 });
  });

  it.each(['600', '/60s', '0/60s', '1.5/60s', 'ten/60s', '600/60'])('refuses the rate limit %j', (text) =>
    expect(() => parseRateLimit(text)).toThrow(),
  );

  it('takes off for a load test: the largest window limit, not a missing one', () => {
    expect(parseRateLimit('off')).toEqual({ limit: 2_147_483_647, windowMs: 60_000 });
    expect(parseRateLimit('OFF', '--address-rate-limit')).toEqual({ limit: 2_147_483_647, windowMs: 60_000 });
    expect(() => parseLoginLockout('off')).toThrow(/^--login-lockout "off"/);
  });

  it('parses a login lockout and names its own flag when refusing one', () => {
    expect(parseLoginLockout('10/15m')).toEqual({ failures: 10, windowMs: 900_000 });
    expect(() => parseLoginLockout('ten/15m')).toThrow(/^--login-lockout "ten\/15m"/);
    expect(() => parseRateLimit('x', '--address-rate-limit')).toThrow(/^--address-rate-limit "x"/);
  });

  it('parses token lifetimes per level', () => {
    expect(parseTokenTtls(['affiliate=4h', 'ACCOUNT=30m'])).toEqual({ affiliate: 14_400_000, account: 1_800_000 });
  });

  it.each(['affiliate', 'root=4h', 'company=soon'])('refuses the token lifetime %j', (text) => expect(() => parseTokenTtls([text])).toThrow());
});
