import type { HostAllowlist } from './host-allowlist.js';

/** Why a webhook target cannot be posted to: the attempt's errorCode and a readable error. */
export interface TargetProblem {
  errorCode: 'INVALID_URL' | 'HOST_NOT_ALLOWED' | 'INVALID_HEADER';
  error: string;
}

/** RFC 9110 §5.6.2 token; values as Node's http accepts them (no CR, LF or other controls). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Header values go on the wire verbatim: control characters would break (or split) the request. */
export const SAFE_HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The one judgement of a webhook target, made when a channel is created or replaced (its
 * service turns a problem into a 400) and again before every delivery attempt (state imported
 * from an older mock, or before --webhook-hosts was set, is never trusted): an absolute
 * http(s) URL that `new URL()` accepts, with a host on the allowlist, and headers that can go
 * on the wire.
 *
 * @example webhookTargetProblem('https://', {}, allowlist)?.errorCode // 'INVALID_URL'
 */
export function webhookTargetProblem(url: string, headers: Record<string, unknown>, allowlist: HostAllowlist): TargetProblem | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { errorCode: 'INVALID_URL', error: `${JSON.stringify(url)} is not an absolute URL` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { errorCode: 'INVALID_URL', error: `${JSON.stringify(url)} is not an http:// or https:// URL` };
  }
  if (!parsed.hostname) return { errorCode: 'INVALID_URL', error: `${JSON.stringify(url)} has no host` };
  const notAllowed = allowlist.check(parsed);
  if (notAllowed) return { errorCode: 'HOST_NOT_ALLOWED', error: notAllowed };
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || typeof value !== 'string' || !SAFE_HEADER_VALUE.test(value)) {
      return { errorCode: 'INVALID_HEADER', error: `extra header ${JSON.stringify(name)} cannot be sent (not a token name, or a value with control characters)` };
    }
  }
  return undefined;
}
