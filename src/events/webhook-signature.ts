import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The Shipmock-Signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`
 * (Stripe-style; the timestamp is signed with the body so an old delivery cannot be replayed
 * as new). `t` is the mock's clock at the attempt, so it moves with time travel.
 *
 * @example signatureHeader('whsec_0123456789abcdef', 1767225600, '{"id":"…"}') // 't=1767225600,v1=5f…'
 */
export function signatureHeader(secret: string, unixSeconds: number, rawBody: string): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, `${unixSeconds}.${rawBody}`)}`;
}

/**
 * Receiver-side check, the same steps the README shows: parse, recompute over the raw body,
 * compare in constant time, and (optionally) bound the age of `t`.
 * @example verifySignature(secret, req.headers['shipmock-signature'], rawBody) // true
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  rawBody: string,
  options: { nowSeconds?: number; toleranceSeconds?: number } = {},
): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return false;
  const expected = Buffer.from(hmacHex(secret, `${match[1]}.${rawBody}`), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(match[2], 'hex'))) return false;
  if (options.nowSeconds === undefined) return true;
  return Math.abs(options.nowSeconds - Number(match[1])) <= (options.toleranceSeconds ?? 300);
}

function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}
