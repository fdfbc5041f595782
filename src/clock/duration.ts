/**
 * The one duration parser: ISO 8601 durations (`PT15M`, `P1DT2H`, `P2W`; scenario files, the
 * control plane's clock) and the short form of CLI flags (`90s`, `15m`, `4h`, `250ms`), in
 * milliseconds. Hand-written: two regular expressions; a library (e.g. iso8601-duration) would
 * cover only the first form.
 *
 * @example parseDuration('PT4H') // 14400000
 * @example parseDuration('15m') // 900000
 */
export function parseDuration(text: string): number {
  const iso = ISO_8601.exec(text);
  if (iso && text !== 'P' && !text.endsWith('T')) {
    const [, w, d, h, m, s] = iso.map((v) => (v === undefined ? 0 : Number(v)));
    return Math.round(((((w * 7 + d) * 24 + h) * 60 + m) * 60 + s) * 1000);
  }
  const short = SHORT.exec(text.trim());
  if (short) return Math.round(Number(short[1]) * UNIT_MS[short[2]]);
  throw new RangeError(`"${text}" is not a duration: use ISO 8601 (PT15M, P1D) or a number with ms, s, m or h (90s, 15m, 4h)`);
}

const ISO_8601 = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
const SHORT = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
