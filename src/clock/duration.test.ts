import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['PT4H', 14_400_000],
    ['PT15M', 900_000],
    ['PT0.5S', 500],
    ['P1D', 86_400_000],
    ['P1DT2H', 93_600_000],
    ['P2W', 1_209_600_000],
    ['PT0S', 0],
  ])('reads the ISO 8601 duration %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each([
    ['250ms', 250],
    ['90s', 90_000],
    ['15m', 900_000],
    ['4h', 14_400_000],
    ['1.5h', 5_400_000],
    [' 15m ', 900_000],
  ])('reads the short form %j', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'P', 'PT', 'P1DT', 'PT4', '4', '15x', '-5s', 'h', 'P-1D', 'PT4H '])('refuses %j, naming both forms', (text) => {
    expect(() => parseDuration(text)).toThrow(/is not a duration: use ISO 8601 .* or a number with ms, s, m or h/);
  });
});
